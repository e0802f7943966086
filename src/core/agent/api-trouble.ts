// API trouble that passes (a per-minute 429, a 529 overloaded, a 5xx) as the stream reports it,
// told apart from a usage limit and from refused credentials. Pure.
import type { SessionLog, SessionResult } from './stream.js';

/**
 * A session that ended on API trouble that passes: a per-minute rate limit (429, not a usage
 * limit: that is told apart first), an overloaded API (529) or a server error (5xx), once the
 * CLI's own retries were spent.
 */
export function isApiTrouble(
  result: Pick<SessionResult, 'isError' | 'apiErrorStatus' | 'apiErrorType' | 'apiError' | 'text'> | null,
): boolean {
  if (!result?.isError || result.apiError === 'usage_limit_reached') return false;
  const status = result.apiErrorStatus;
  if (status === 429 || (status !== null && status >= 500 && status < 600)) return true;
  if (['rate_limit_error', 'overloaded_error', 'api_error'].includes(result.apiErrorType ?? '')) return true;
  return status === null && /\boverloaded\b|\b529\b/i.test(result.text);
}

/**
 * The sessions in a row, the last included, that ended on API trouble, and when it began (the
 * end of the first of them: its start plus the time its result reports).
 */
export function apiTroubleInARow(sessions: readonly SessionLog[]): { count: number; since: Date | null } {
  let first: SessionLog | null = null;
  let count = 0;
  for (let i = sessions.length - 1; i >= 0 && isApiTrouble((sessions[i] as SessionLog).result); i--) {
    first = sessions[i] as SessionLog;
    count++;
  }
  const start = first?.startedAt;
  const since = start ? new Date(start.getTime() + (first?.result?.durationMs ?? 0)) : null;
  return { count, since };
}
