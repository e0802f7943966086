import type { Action, Observation, RunState } from '../run/types.js';
import { crashRestarts, describeExit } from './decide.js';

// The state a person sees, derived from an observation; and what each action leads to.

export function stateOf(obs: Observation): RunState {
  if (obs.sentinel) return obs.sentinel.kind === 'DONE' ? 'done' : 'failed';
  if (obs.paused) return 'paused';
  if (obs.agentAlive || (obs.wrapperAlive && !obs.exit))
    return obs.session?.mode === 'synthesis' ? 'synthesizing' : 'running';
  return 'waiting';
}

/**
 * The current session's agent and wrapper are gone with no exit record: a crash, or a moment
 * of a session ending or starting. Looked at again after a short grace before it is believed.
 */
export function endUnrecorded(obs: Observation): boolean {
  return (
    !obs.sentinel && !obs.paused && obs.session !== null && !obs.exit && !obs.agentAlive && !obs.wrapperAlive
  );
}

/** How long after a session's start its wrapper may still be on its way (tmux starting it). */
export const START_WINDOW_MS = 10_000;

/**
 * A pass is starting this session right now (its record is written before tmux runs the
 * wrapper), or it really lost its agent: a reader without the lock looks again to tell.
 */
export function mayBeStarting(obs: Observation, now: Date): boolean {
  return (
    endUnrecorded(obs) &&
    now.getTime() - (obs.session as { startedAt: Date }).startedAt.getTime() < START_WINDOW_MS
  );
}

export function stateAfter(action: Action, before: RunState): RunState {
  switch (action.kind) {
    case 'start':
      return action.mode === 'synthesis' ? 'synthesizing' : 'running';
    case 'finish':
      return action.sentinel === 'DONE' ? 'done' : 'failed';
    case 'interrupt':
    case 'wait':
      return 'waiting';
    case 'watch':
      return before;
    default:
      return before;
  }
}

/** Why a run is in its state, in one line, when the state alone does not say it. */
export function reasonOf(obs: Observation): string {
  if (obs.sentinel) return obs.sentinel.reason;
  if (obs.paused) return 'paused (overnight resume <run>, or resume --all for a pause of every run)';
  if (stateOf(obs) !== 'waiting') return '';
  if (!obs.session) return 'not started yet; the next reconcile pass starts it';
  return `agent ended (${describeExit(obs.exit?.code ?? null)}); the next reconcile pass acts on it`;
}

/** One line for the reconcile log, saying what was done (or, for --dry-run, would be) and why. */
export function describeAction(
  action: Action,
  obs: Observation,
  maxRestarts: number,
  planned = false,
): string {
  const verb = (done: string, plan: string) => (planned ? `would ${plan}` : done);
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
      return `${verb('waiting', 'wait')}: ${action.reason}`;
    case 'watch':
      return `${verb('watching', 'watch')} a silent agent: ${action.reason}`;
    case 'start':
      if (action.mode === 'initial') return `${verb('started', 'start')} the first session: ${action.reason}`;
      if (action.mode === 'synthesis') return `${verb('started', 'start')} the synthesis: ${action.reason}`;
      if (action.mode === 'continue') return `${verb('continued', 'continue')} the session: ${action.reason}`;
      if (action.mode === 'retry') return `${verb('retried', 'retry')} the session: ${action.reason}`;
      return `${verb('resumed', 'resume')} (restart ${crashRestarts(obs.restarts) + 1}/${maxRestarts}): ${action.reason}`;
  }
}
