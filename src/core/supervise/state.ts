import type { RunState } from '../run/types.js';
import { describeExit } from './exits.js';
import type { Action, Observation } from './types.js';

// The state a person sees, derived from an observation; and what each action leads to.

export function stateOf(obs: Observation): RunState {
  if (obs.sentinel) return obs.sentinel.kind === 'DONE' ? 'done' : 'failed';
  if (obs.paused) return 'paused';
  const s = obs.session;
  if (s && (s.agent.running || (s.agent.wrapperAlive && !s.agent.exit))) {
    return s.mode === 'synthesis' ? 'synthesizing' : 'running';
  }
  const checks = Object.values(obs.checks ?? {});
  if (checks.some((c) => c.state === 'running' || c.state === 'starting')) return 'verifying';
  return 'waiting';
}

/**
 * The current session's agent and wrapper are gone with no exit record: a crash, or a moment
 * of a session ending or starting. Looked at again after a short grace before it is believed,
 * unless the wrapper's own record shows it gone: then nothing more is on its way.
 */
export function endUnrecorded(obs: Observation): boolean {
  const agent = obs.session?.agent;
  if (obs.sentinel || obs.paused || !agent || agent.running) return false;
  return !agent.exit && !agent.wrapperAlive && !agent.wrapperGone;
}

/** A live agent whose wrapper is gone, in a run still going: a watch must start a pass at its end. */
export function needsAgentWatch(obs: Observation): boolean {
  const agent = obs.session?.agent;
  return !obs.sentinel && !!agent?.running && agent.wrapperGone === true;
}

/** How long after a session's start its wrapper may still be on its way (tmux starting it). */
export const START_WINDOW_MS = 10_000;

/**
 * A pass is starting this session right now (its record is written before tmux runs the
 * wrapper), or it really lost its agent: a reader without the lock looks again to tell.
 */
export function mayBeStarting(obs: Observation, now: Date): boolean {
  const startedAt = obs.session?.startedAt;
  return endUnrecorded(obs) && !!startedAt && now.getTime() - startedAt.getTime() < START_WINDOW_MS;
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
    case 'check':
      return 'verifying';
    default:
      return before;
  }
}

/**
 * Why a run is in its state, in one line, when the state alone does not say it. `id`: the run's,
 * so that a hint in it can be pasted as it is.
 */
export function reasonOf(obs: Observation, id = '<run>'): string {
  if (obs.sentinel) return obs.sentinel.reason;
  if (obs.paused) return `paused (overnight resume ${id}, or resume --all for a pause of every run)`;
  if (stateOf(obs) !== 'waiting') return '';
  const agent = obs.session?.agent;
  if (!agent) return 'not started yet; the next reconcile pass starts it';
  if (!agent.running && !agent.started && !agent.exit)
    return `session ${obs.session?.n} never started its agent; the next reconcile pass starts it again`;
  const code = agent.running ? null : (agent.exit?.code ?? null);
  return `agent ended (${describeExit(code)}); the next reconcile pass acts on it`;
}
