import type { RunSpec, SessionRecord } from '../run/types.js';
import { oneLine } from '../text.js';
import type { Cause } from './causes.js';
import { classifyEnd, type EndClass } from './classify.js';
import { describeExit } from './exits.js';
import type { Action, AgentNotRunning, Observation } from './types.js';

// The ended session as decide's rules see it, computed once; and the actions they build. Pure.

export const done = (cause: Cause, reason: string): Action => ({
  kind: 'finish',
  cause,
  sentinel: 'DONE',
  reason,
  stopAgent: false,
});
export const failed = (cause: Cause, reason: string): Action => ({
  kind: 'finish',
  cause,
  sentinel: 'FAILED',
  reason,
  stopAgent: false,
});

/** The ended session, as every rule below sees it: computed once. */
export interface Ended {
  spec: RunSpec;
  obs: Observation;
  session: SessionRecord;
  agent: AgentNotRunning;
  now: Date;
  exit: number | null;
  /** `exit 1`, `killed by SIGKILL (exit 137)`, … */
  how: string;
  endedAt: Date;
  /** Seconds the session ran (restart.log keeps it; backoff is computed from it). */
  uptime: number;
  /** How the session ended, named once (classify.ts). */
  endClass: EndClass;
  /** The agent's own error text, on one line: it says more than an exit status. */
  errorText: string | null;
  /** The end time has passed. */
  ended: boolean;
}

export type Rule = (e: Ended) => Action | null;

export const start = (
  e: Ended,
  mode: 'resume' | 'continue' | 'retry' | 'synthesis',
  cause: Cause,
  reason: string,
) => ({ kind: 'start', cause, mode, reason, exit: e.exit, uptime: e.uptime }) as const satisfies Action;

export function endedOf(
  spec: RunSpec,
  obs: Observation,
  session: SessionRecord,
  agent: AgentNotRunning,
  now: Date,
): Ended {
  const exit = agent.exit ? agent.exit.code : null;
  const recorded = agent.exit?.at ?? obs.outputAt ?? session.startedAt;
  // An exit recorded after this pass read the clock (the exit race) ended now, not in the future:
  // every wait below counts from it, so no backoff due is no wait ('backing off 0s').
  const endedAt = recorded.getTime() > now.getTime() ? now : recorded;
  const uptime = Math.max(0, Math.round((endedAt.getTime() - session.startedAt.getTime()) / 1000));
  const endClass = classifyEnd({
    exitCode: exit,
    result: agent.result,
    limited: agent.limit !== null,
    auth: agent.authFailures > 0,
    reportExists: obs.reportExists,
    errorType: agent.errorType ?? null,
    stoppedByUs: agent.hung,
  });
  const result = agent.result;
  return {
    spec,
    obs,
    session,
    agent,
    now,
    exit,
    how: describeExit(exit),
    endedAt,
    uptime,
    endClass,
    errorText: result?.isError && result.text ? oneLine(result.text, 120) : null,
    ended: now >= spec.endsAt,
  };
}
