import { rmSync } from 'node:fs';

import { exists, writeFileAtomic } from '../adapters/files.js';
import { tryLock } from '../adapters/lock.js';
import { listRunIds } from '../adapters/store.js';
import { readHeartbeat } from '../adapters/supervision.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { finishedFiles, rootPaths, runPaths } from '../core/run/paths.js';
import type { Action } from '../core/run/types.js';
import { decide } from '../core/supervise/decide.js';
import { describeAction, endUnrecorded, stateAfter, stateOf } from '../core/supervise/state.js';
import { act, finalizeFinished, observeRun, type PassContext } from '../reconcile/act.js';

export interface ReconcileOptions {
  dryRun?: boolean;
  json?: boolean;
  /** Milliseconds to keep trying for a held lock (the wrapper's and the backoff timer's passes). */
  retryLock?: number;
  /** The pass was started by the installed schedule (cron, launchd, systemd). */
  scheduled?: boolean;
}

interface Outcome {
  id: string;
  action: Action['kind'] | 'skipped' | 'error';
  mode?: string;
  state?: string;
  message: string;
}

/** How long a pass waits for an exit record that may be on its way. */
const EXIT_RACE_MS = 2_000;

/** Passes requested while one runs are folded into it; this bounds the loop. */
const MAX_ROUNDS = 5;

export async function reconcileCommand(opts: ReconcileOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  const rp = rootPaths(root);
  if (!exists(root)) {
    if (opts.json) io.stdout('[]');
    return 0;
  }

  const ctx: PassContext = { root, settings, io, lockLost: false };
  let release: (() => Promise<void>) | null = null;
  if (!opts.dryRun) {
    const onLost = (err: Error) => {
      ctx.lockLost = true;
      io.stderr(
        `warning: the reconcile lock was lost (${err.message}); this pass starts and finishes nothing more`,
      );
    };
    release = await tryLock(rp.lock, onLost);
    // A pass asked for by an exiting agent must not be lost: the holder may be past its last check.
    for (const deadline = Date.now() + (opts.retryLock ?? 0); !release && Date.now() < deadline;) {
      writeFileAtomic(rp.passRequested, `${io.now().toISOString()}\n`);
      await new Promise((r) => setTimeout(r, 200));
      release = await tryLock(rp.lock, onLost);
    }
    if (!release) {
      // Not lost: the holder sees the marker and runs once more before it lets go.
      writeFileAtomic(rp.passRequested, `${io.now().toISOString()}\n`);
      io.stderr('another reconcile pass is running; it will run again for this request');
      return 0;
    }
  }

  const started = Date.now();
  const outcomes: Outcome[] = [];
  let failed = false;
  let ids: string[] = [];
  const record = (id: string, outcome: Outcome | undefined) => {
    if (!outcome) return;
    if (outcome.action === 'error') failed = true;
    outcomes.push(outcome);
    if (!opts.json) (outcome.action === 'error' ? io.stderr : io.stdout)(`${id}: ${outcome.message}`);
  };
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (!opts.dryRun) rmSync(rp.passRequested, { force: true });
      ids = listRunIds(root);
      ctx.panes = undefined; // read tmux afresh each round: the last one may have started sessions
      const later: string[] = [];
      for (const id of ids) {
        const result = await reconcileRun(id, ctx, opts, false);
        if (result === RECHECK) later.push(id);
        else record(id, result);
      }
      // One grace for every run caught in the exit race (after a reboot, that is all of them).
      if (later.length > 0) {
        await new Promise((r) => setTimeout(r, EXIT_RACE_MS));
        ctx.panes = undefined;
        for (const id of later) {
          const result = await reconcileRun(id, ctx, opts, true);
          if (result !== RECHECK) record(id, result);
        }
      }
      if (opts.dryRun || !exists(rp.passRequested)) break;
    }
    if (!opts.dryRun) {
      // scheduledAt is when the installed schedule last ran a pass: the proof that it fires, which
      // passes started by an agent's exit or by hand must not fake.
      const at = io.now().toISOString();
      const scheduledAt = opts.scheduled ? at : readHeartbeat(root)?.scheduledAt;
      const heartbeat = {
        at,
        durationMs: Date.now() - started,
        runs: ids.length,
        actions: outcomes.filter((o) => o.action !== 'none').length,
        ...(scheduledAt ? { scheduledAt } : {}),
      };
      writeFileAtomic(rp.heartbeat, JSON.stringify(heartbeat) + '\n');
    }
  } finally {
    await release?.();
  }
  if (opts.json) io.stdout(JSON.stringify(outcomes, null, 2));
  return failed ? 1 : 0;
}

/** A run to look at again after the exit-race grace. */
const RECHECK = Symbol('recheck');

/** One run: observe, decide, act. Undefined when there is nothing worth a line. */
async function reconcileRun(
  id: string,
  ctx: PassContext,
  opts: ReconcileOptions,
  afterGrace: boolean,
): Promise<Outcome | undefined | typeof RECHECK> {
  // Finished and verified free of agents: nothing more to read (keeps a pass over 1,000 old runs fast).
  const f = finishedFiles(ctx.root, id);
  if (exists(f.final) && (exists(f.done) || exists(f.failed))) return undefined;
  const paths = runPaths(ctx.root, id);
  try {
    if (!opts.dryRun && (await finalizeFinished(id, paths, ctx.io.now()))) return undefined;
    for (let step = 0; step < 2; step++) {
      const { spec, obs } = await observeRun(id, paths, ctx);
      const action = decide(spec, obs, ctx.io.now());
      // The exit race: the agent is gone but its exit status not recorded yet. The pass looks
      // again once, after a short grace, before calling it a crash.
      if (!afterGrace && !opts.dryRun && action.kind !== 'none' && endUnrecorded(obs)) return RECHECK;
      const message = describeAction(action, obs, spec.limits.maxRestarts, opts.dryRun);
      const state = stateAfter(action, stateOf(obs));
      const outcome: Outcome = {
        id,
        action: action.kind,
        state,
        message,
        ...(action.kind === 'start' ? { mode: action.mode } : {}),
      };
      if (opts.dryRun) return outcome;
      if (action.kind === 'none') return opts.json ? outcome : undefined;
      if (!(await act(id, spec, paths, obs, action, ctx))) return opts.json ? outcome : undefined;
      // After an interrupt the agent is gone: decide again at once (the synthesis starts now).
      if (action.kind !== 'interrupt' || step === 1) return outcome;
      if (!opts.json) ctx.io.stdout(`${id}: ${message}`);
    }
    return undefined;
  } catch (err) {
    const e = err as Error & { file?: string };
    if (e.file) return { id, action: 'skipped', message: `skipped: ${e.message}` };
    return { id, action: 'error', message: `error: ${e.message}` };
  }
}
