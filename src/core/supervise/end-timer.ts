import type { RunSpec } from '../run/types.js';
import { synthesisDeadline } from './ended.js';
import type { Action, Observation } from './types.js';

// A night must end on time without a schedule: launch and every pass that finds a live run arm a
// timer for the next moment a pass must come: the end time, a fix session's end (verify_budget),
// then the synthesis's deadline.

/** When the run's end timer should fire after this pass's action; null for none. */
export function endTimerAt(spec: RunSpec, obs: Observation, action: Action, now: Date): Date | null {
  // A wait arms its own timer; a finished run needs none; an interrupt is decided again at once.
  if (action.kind === 'wait' || action.kind === 'finish' || action.kind === 'cleanup') return null;
  if (action.kind === 'interrupt' || obs.sentinel || obs.paused) return null;
  if (now < spec.endsAt) return spec.endsAt;
  const session = obs.session;
  let at: Date | null = null;
  if (action.kind === 'start' && action.mode === 'synthesis') {
    const recorded = action.again && session ? synthesisDeadline(spec, session) : null;
    at = action.deadline ?? recorded ?? synthesisDeadline(spec, { n: 0, mode: 'synthesis', startedAt: now });
  } else if (action.kind === 'start' && action.mode === 'fix') {
    at = action.deadline ?? null;
  } else if (action.kind !== 'start' && session?.mode === 'synthesis' && session.agent.running) {
    at = synthesisDeadline(spec, session);
  } else if (action.kind !== 'start' && session?.mode === 'fix' && session.agent.running) {
    // The fix session's end (verify_budget's), when a pass must stop it.
    at = session.deadline ?? null;
  }
  return at && at > now ? at : null;
}
