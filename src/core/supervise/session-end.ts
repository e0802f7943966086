import { authFailuresInARow, failedResumesInARow, summarizeUsage, type SessionLog } from '../agent/stream.js';
import { classifyLimit } from './limits.js';
import type { AgentNotRunning } from './types.js';

// How a session ended, judged from the run's output: what it said as it stopped, the limit it hit,
// and the streaks of refused logins and failed resumes. Pure: parsed logs and times in.

export type EndFacts = Pick<
  AgentNotRunning,
  'result' | 'limit' | 'authFailures' | 'failedResumes' | 'conversation' | 'costUsd'
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
 * Session `n`'s end as decide needs it. `localOffset` (minutes east of UTC) reads a limit's reset
 * time written without a zone.
 */
export function endOfSession(
  logs: readonly SessionLog[],
  n: number,
  endedAt: Date,
  localOffset: number,
): EndFacts {
  const current = logs.findLast((l) => l.n === n);
  const r = current?.result ?? null;
  const limit = current
    ? classifyLimit(saidAsItStopped(current), current.rateLimit, endedAt, localOffset)
    : null;
  return {
    costUsd: summarizeUsage(logs).costUsd,
    result: r && { isError: r.isError, subtype: r.subtype, text: r.text, apiErrorStatus: r.apiErrorStatus },
    conversation: current?.sessionId ?? null,
    limit,
    authFailures: current ? authFailuresInARow(logs) : 0,
    failedResumes: current ? failedResumesInARow(logs) : 0,
  };
}
