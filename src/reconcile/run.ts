import { watchAgent } from '../adapters/agent-watch.js';
import { exists } from '../adapters/files.js';
import { runDirProblem } from '../adapters/owner.js';
import { markRemoved } from '../adapters/run-index.js';
import { hasSentinel, readAgent } from '../adapters/store.js';
import { armEndTimer } from '../adapters/wake-timer.js';
import { RunFileError } from '../core/errors.js';
import { describeIoError, errnoOf } from '../core/io-error.js';
import { lazyLocalTime } from '../core/local-time.js';
import { runPaths, type RunPaths } from '../core/run/paths.js';
import { decide } from '../core/supervise/decide.js';
import { describeAction } from '../core/supervise/describe.js';
import { endTimerAt } from '../core/supervise/end-timer.js';
import { endUnrecorded, needsAgentWatch, stateAfter, stateOf } from '../core/supervise/state.js';
import type { Action } from '../core/supervise/types.js';
import { observeRun } from '../read/observe.js';
import type { PassContext } from './context.js';

// One run in a pass: observe → decide → act, and one outcome saying what was done.

export interface Outcome {
  id: string;
  action: Action['kind'] | 'skipped' | 'error';
  mode?: string;
  state?: string;
  message: string;
  /** An error's words without the line's prefix, and its system code when it has one (data, not prose). */
  error?: { text: string; errno: string | null };
}

/** A run to look at again after the exit-race grace. */
export const RECHECK = Symbol('recheck');

export interface RunOptions {
  dryRun: boolean;
  /** Outcomes of runs where nothing was done are kept too (for --json). */
  everyOutcome: boolean;
  /** This is the second look after the exit-race grace: what is seen now is believed. */
  afterGrace: boolean;
  /** Said as soon as it happens, before the run's final outcome (an interrupt, then the synthesis). */
  progress: (outcome: Outcome) => void;
}

/** Undefined when there is nothing worth a line. */
export async function reconcileRun(
  id: string,
  ctx: PassContext,
  opts: RunOptions,
): Promise<Outcome | undefined | typeof RECHECK> {
  const paths = runPaths(ctx.root, id);
  // Gone from the runs root (removed by hand): nothing to supervise, and no longer live.
  if (!exists(paths.workspace)) {
    if (!opts.dryRun) markRemoved(ctx.root, id, null, ctx.io.now());
    return undefined;
  }
  // A run another user can write into is not supervised (status shows it broken, with the fix);
  // the other runs go on. Not even its transitions are queued: they could be planted.
  const unsafe = runDirProblem(paths);
  if (unsafe) return { id, action: 'skipped', message: `skipped: ${unsafe}` };
  const clock = lazyLocalTime();
  try {
    // Finishing and acting are loaded only when a run needs them: a steady pass does neither.
    if (!opts.dryRun && hasSentinel(paths) && (await finalize(id, paths, ctx)) !== null) return undefined;
    for (let step = 0; step < 2; step++) {
      const now = ctx.io.now();
      const { spec, obs } = await observeRun(paths, ctx, now);
      const action = decide(spec, obs, now);
      // The exit race: the agent is gone but its exit status not recorded yet. The pass looks
      // again once, after a short grace, before calling it a crash.
      if (!opts.afterGrace && !opts.dryRun && action.kind !== 'none' && endUnrecorded(obs)) return RECHECK;
      const message = describeAction(action, obs, spec.limits.maxRestarts, clock, opts.dryRun);
      const state = stateAfter(action, stateOf(obs));
      const mode = action.kind === 'start' ? { mode: action.mode } : {};
      const outcome: Outcome = { id, action: action.kind, state, message, ...mode };
      if (opts.dryRun) return outcome;
      // The next moment a pass must come (the end time, the synthesis's deadline), schedule or not.
      const wakeAt = endTimerAt(spec, obs, action, now);
      if (wakeAt) await armEndTimer(paths, wakeAt, now, ctx.io.env);
      const agent = needsAgentWatch(obs) ? readAgent(paths, obs.session) : null;
      if (agent) await watchAgent(paths, agent, ctx.io.env);
      const quiet = opts.everyOutcome ? outcome : undefined;
      if (action.kind === 'none') return quiet;
      const { act } = await import('./act.js');
      if (!(await act(spec, paths, obs, action, ctx, now))) return quiet;
      // After an interrupt the agent is gone: decide again at once (the synthesis starts now).
      if (action.kind !== 'interrupt' || step === 1) return outcome;
      opts.progress(outcome);
    }
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    if (err instanceof RunFileError) return { id, action: 'skipped', message: `skipped: ${message}` };
    const text = describeIoError(err as Error);
    return { id, action: 'error', message: `error: ${text}`, error: { text, errno: errnoOf(err as Error) } };
  } finally {
    // What this pass recorded, or a killed one left unqueued, goes to the outbox (cheap if nothing is new).
    if (!opts.dryRun && !ctx.lockLost) await ctx.hooks?.afterRun(id, paths);
  }
}

async function finalize(id: string, paths: RunPaths, ctx: PassContext) {
  const { finalizeFinished } = await import('./finalize.js');
  return finalizeFinished(id, paths, ctx.io.now(), ctx.hooks);
}
