import type { LocalTime } from '../local-time.js';
import { crashRestarts } from './exits.js';
import { fullReason, type Action, type Observation } from './types.js';

// decide's actions said for a person: the reconcile log, `--dry-run`, status. Times become clock
// text here, in the zone the caller gives.

/** A wait's reason with its times: when a limit resets and when the next try is. */
export function waitText(action: Extract<Action, { kind: 'wait' }>, clock: LocalTime): string {
  if (action.late && action.resetsAt) {
    const lifts = `limit lifts at ${clock.hm(action.resetsAt)} (${action.reason})`;
    return `report late: ${lifts}; the report is written then, from ${clock.hms(action.until)}`;
  }
  if (action.resetsAt) {
    return `${action.reason}: resets ${clock.hm(action.resetsAt)}; waiting until ${clock.hms(action.until)}`;
  }
  return `${action.reason}, next try at ${clock.hms(action.until)}`;
}

/** One line for the reconcile log, saying what was done (or, for --dry-run, would be) and why. */
export function describeAction(
  action: Action,
  obs: Observation,
  maxRestarts: number,
  clock: LocalTime,
  planned = false,
): string {
  const verb = (done: string, plan: string) => (planned ? `would ${plan}` : done);
  // What the steps after the rule added (a verdict, a fresh session's why) is said with it.
  action = { ...action, reason: fullReason(action) };
  switch (action.kind) {
    case 'none':
      return `nothing to do: ${action.reason}`;
    case 'cleanup':
      return `${verb('stopped', 'stop')} a leftover agent: ${action.reason}`;
    case 'interrupt':
      return `${verb('interrupted', 'interrupt')} the agent: ${action.reason}`;
    case 'finish':
      return `${planned ? `would write ${action.sentinel}` : action.sentinel}: ${action.reason}`;
    case 'wait':
      return `${verb('waiting', 'wait')}: ${waitText(action, clock)}`;
    case 'watch':
      return `${verb('watching', 'watch')} a silent agent: ${action.reason}`;
    case 'check':
      return `${verb('started', 'start')} the check${action.again ? ' again' : ''}: ${action.reason}`;
    case 'stop-check':
      return `${verb('stopped', 'stop')} the check: ${action.reason}`;
    case 'start':
      if (action.again)
        return `${verb('started', 'start')} session ${obs.session?.n ?? '?'} again: ${action.reason}`;
      switch (action.mode) {
        case 'initial':
          return `${verb('started', 'start')} the first session: ${action.reason}`;
        case 'synthesis':
          return `${verb('started', 'start')} the synthesis: ${action.reason}`;
        case 'fix':
          return `${verb('started', 'start')} the fix session: ${action.reason}`;
        case 'continue':
          return `${verb('continued', 'continue')} the session: ${action.reason}`;
        case 'retry':
          return `${verb('retried', 'retry')} the session: ${action.reason}`;
        case 'resume': {
          const restart = `restart ${crashRestarts(obs.restarts) + 1}/${maxRestarts}`;
          return `${verb('resumed', 'resume')} (${restart}): ${action.reason}`;
        }
      }
  }
}
