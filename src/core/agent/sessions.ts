// Judgements over a run's sessions as the stream gave them: a resume that started anew, refused
// credentials, resumes that failed in a row, and what the night cost. Pure.
import { isApiTrouble } from './api-trouble.js';
import type { SessionLog, SessionResult } from './stream.js';

/**
 * Sessions whose init names another conversation than the one overnight started or resumed
 * (the run's `sessionId` where the marker does not say): a resume that silently started anew.
 */
export function wrongConversations(
  sessions: readonly SessionLog[],
  sessionId: string,
): { session: number; conversation: string; expected: string }[] {
  return sessions
    .filter(
      (s) => s.n !== null && s.n > 1 && s.sessionId !== null && s.sessionId !== (s.expected ?? sessionId),
    )
    .map((s) => ({
      session: s.n as number,
      conversation: s.sessionId as string,
      expected: s.expected ?? sessionId,
    }));
}

// What a refused credential says, in any case.
const AUTH = new RegExp(
  [
    'not logged in',
    'invalid api key',
    'oauth token has expired',
    'failed to authenticate',
    'authentication_error',
    'authentication failed',
  ].join('|'),
  'i',
);

/** A session that ended because its credentials were refused. */
export function isAuthFailure(result: SessionResult | null): boolean {
  if (!result?.isError) return false;
  return result.apiErrorStatus === 401 || result.apiErrorStatus === 403 || AUTH.test(result.text);
}

/** Sessions in a row, the last included, that ended on an auth failure (none if the last did not). */
export function authFailuresInARow(sessions: readonly SessionLog[]): number {
  let n = 0;
  for (let i = sessions.length - 1; i >= 0 && isAuthFailure((sessions[i] as SessionLog).result); i--) n++;
  return n;
}

/** Resumed sessions at the end of the log that failed without any output of the model. */
export function failedResumesInARow(sessions: readonly SessionLog[]): number {
  let n = 0;
  for (let i = sessions.length - 1; i >= 0; i--) {
    const s = sessions[i] as SessionLog;
    if (s.mode === 'initial' || s.assistantEvents > 0 || (s.result && !s.result.isError)) break;
    // The API failed, not the resume: that proves nothing about the conversation.
    if (isApiTrouble(s.result)) break;
    n++;
  }
  return n;
}

export interface Usage {
  costUsd: number;
  tokens: { input: number; output: number };
  sessions: number;
  permissionDenials: { count: number; tools: { name: string; count: number }[] };
}

/**
 * Totals over a run's sessions, most-denied tools first. A result's total_cost_usd is the running
 * total of its conversation (a resume restores it from the transcript), so the last one of each
 * conversation counts, less what a follow-up's conversation had cost in the run it came from;
 * usage tokens are per session and add up.
 */
export function summarizeUsage(sessions: readonly SessionLog[]): Usage {
  const denied = new Map<string, number>();
  const costByConversation = new Map<string, number>();
  const inherited = new Map<string, number>();
  let input = 0;
  let output = 0;
  sessions.forEach((s, i) => {
    if (s.inheritedCostUsd > 0 && s.expected) inherited.set(s.expected, s.inheritedCostUsd);
    if (!s.result) return;
    costByConversation.set(s.result.sessionId ?? s.sessionId ?? `#${i}`, s.result.costUsd);
    input += s.result.inputTokens;
    output += s.result.outputTokens;
    for (const tool of s.result.denied) denied.set(tool, (denied.get(tool) ?? 0) + 1);
  });
  const costUsd = [...costByConversation].reduce(
    (sum, [conversation, usd]) => sum + Math.max(0, usd - (inherited.get(conversation) ?? 0)),
    0,
  );
  const tools = [...denied]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return {
    costUsd: Math.round(costUsd * 1e6) / 1e6,
    tokens: { input, output },
    sessions: sessions.filter((s) => s.n !== null || s.sessionId !== null).length,
    permissionDenials: { count: tools.reduce((n, t) => n + t.count, 0), tools },
  };
}
