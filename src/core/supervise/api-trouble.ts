import { formatDuration } from '../config/duration.js';
import type { RunSpec } from '../run/types.js';
import { backoffFor } from './backoff.js';
import type { Cause } from './causes.js';
import type { Action, AgentNotRunning } from './types.js';

// Transient API trouble (a per-minute 429, a 529 overloaded, a 5xx) once the CLI's own retries are
// spent: waited out with backoff, never counted toward the circuit breaker, and the run fails
// only when it lasts past transient_max. Pure.

export interface Trouble {
  spec: RunSpec;
  agent: AgentNotRunning;
  now: Date;
  endedAt: Date;
  exit: number | null;
  uptime: number;
  /** `exit 1` and the agent's own words, for the reason. */
  how: string;
  said: string | null;
}

/** `529 overloaded_error`, `429 rate_limit_error`, or what the result said when it gave no status. */
function whatFailed(agent: AgentNotRunning): string {
  const r = agent.result;
  const code = [r?.apiErrorStatus, r?.apiErrorType].filter((x) => x !== null && x !== undefined).join(' ');
  return code || 'an API error';
}

export function waitOutApiTrouble(t: Trouble): Action {
  const { spec, agent, now, endedAt } = t;
  const { count, since } = agent.apiTroubles;
  const began = since && since < endedAt ? since : endedAt;
  const lasted = (endedAt.getTime() - began.getTime()) / 1000;
  const said = t.said ? `: ${t.said}` : '';
  if (lasted >= spec.limits.transientMax) {
    const max = formatDuration(spec.limits.transientMax);
    return {
      kind: 'finish',
      cause: 'api-trouble',
      sentinel: 'FAILED',
      stopAgent: false,
      reason:
        `the API kept failing for ${formatDuration(lasted)}, longer than transient_max (${max}); ` +
        `last ${whatFailed(agent)} (${t.how})${said}`,
    };
  }
  // The CLI has retried already: even the first wait is a backoff, doubling up to backoff_max.
  const delay = backoffFor(Math.max(count, 1) + 1, spec.limits);
  const why = `the API failed (${whatFailed(agent)}, ${t.how})${said}; not counted as a restart`;
  const retryAt = new Date(endedAt.getTime() + delay * 1000);
  if (now < retryAt)
    return backoffWait(spec, retryAt, `${why}; backing off ${formatDuration(delay)}`, 'api-trouble');
  return { kind: 'start', cause: 'api-trouble', mode: 'retry', reason: why, exit: t.exit, uptime: t.uptime };
}

/**
 * A wait before the next exploring session, cut short at the end time: the synthesis starts then,
 * whatever backoff was left.
 */
export function backoffWait(spec: RunSpec, retryAt: Date, reason: string, cause: Cause = 'backoff'): Action {
  if (retryAt <= spec.endsAt) return { kind: 'wait', cause, until: retryAt, reason };
  return { kind: 'wait', cause, until: spec.endsAt, reason: `${reason}, cut short by the end time` };
}
