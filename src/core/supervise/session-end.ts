import { apiTroubleInARow } from '../agent/api-trouble.js';
import { authFailuresInARow, failedResumesInARow, summarizeUsage } from '../agent/sessions.js';
import type { SessionLog } from '../agent/stream.js';
import { classifyLimit, overageLimit, type Limit } from './limits.js';
import type { AgentNotRunning, RunningAgent } from './types.js';

// How a session ended, judged from the run's output: what it said as it stopped, the limit it hit,
// and the streaks of refused logins and failed resumes. Pure: parsed logs and times in.

export type EndFacts = Pick<
  AgentNotRunning,
  | 'result'
  | 'limit'
  | 'authFailures'
  | 'failedResumes'
  | 'apiTroubles'
  | 'conversation'
  | 'costUsd'
  | 'errorType'
  | 'lastWords'
>;

/**
 * Only what the session said as it stopped counts: its error result, else its last lines; never
 * what it wrote earlier (a finding that quotes a limit message never stops a run).
 */
export function saidAsItStopped(log: SessionLog | undefined): string {
  const r = log?.result;
  if (r) return r.isError ? r.text : '';
  return (log?.otherLines ?? []).join('\n');
}

/**
 * The limit a session ended on: a usage limit it said it hit, or, unless the run allows it, the
 * paid extra usage it was spending when it stopped (waited out like a usage limit).
 */
function limitOf(log: SessionLog, endedAt: Date, localOffset: number, allowOverage: boolean): Limit | null {
  if (!allowOverage && log.rateLimit?.usingOverage) return overageLimit(log.rateLimit);
  const said = classifyLimit(saidAsItStopped(log), log.rateLimit, endedAt, localOffset);
  if (said || log.result?.apiError !== 'usage_limit_reached') return said;
  // The CLI names the cause even when neither its event nor its words did.
  return { kind: 'wait', resetsAt: log.rateLimit?.resetsAt ?? null, what: 'usage limit' };
}

/**
 * Session `n`'s end as decide needs it. `localOffset` (minutes east of UTC) reads a limit's reset
 * time written without a zone.
 */
export function endOfSession(
  logs: readonly SessionLog[],
  n: number,
  endedAt: Date,
  localOffset: number,
  allowOverage = false,
): EndFacts {
  const current = logs.findLast((l) => l.n === n);
  const r = current?.result ?? null;
  return {
    costUsd: summarizeUsage(logs).costUsd,
    result: r && {
      isError: r.isError,
      subtype: r.subtype,
      text: r.text,
      apiErrorStatus: r.apiErrorStatus,
      apiErrorType: r.apiErrorType,
      apiError: r.apiError,
    },
    conversation: current?.sessionId ?? null,
    // A sandbox that could not start ends the session before any turn: a cause like the others.
    errorType: current?.errorType ?? current?.result?.startupFailure ?? null,
    lastWords: current?.otherLines.findLast((l) => l.trim() !== '')?.trim() ?? null,
    limit: current ? limitOf(current, endedAt, localOffset, allowOverage) : null,
    authFailures: current ? authFailuresInARow(logs) : 0,
    failedResumes: current ? failedResumesInARow(logs) : 0,
    apiTroubles: current ? apiTroubleInARow(logs) : { count: 0, since: null },
  };
}

/** A live session on paid extra usage that the run does not allow, as decide needs it; else null. */
export function overageOf(log: SessionLog | undefined): NonNullable<RunningAgent['overage']> | null {
  if (!log?.rateLimit?.usingOverage) return null;
  return { since: log.overageSince, resetsAt: log.rateLimit.resetsAt, window: log.rateLimit.type };
}
