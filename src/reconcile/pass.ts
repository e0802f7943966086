import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import { describeIoError, errnoOf } from '../core/io-error.js';
import { rootPaths } from '../core/run/paths.js';
import type { PassContext } from './context.js';
import { REAL_PASS_DEPS, type PassDeps } from './pass-deps.js';
import { serveRequests, type PassResult } from './requests.js';
import { RECHECK, type Outcome } from './run.js';

// The pass: one at a time under the runs root's lock; every unfinished run reconciled; rounds
// while more passes are requested; one exit-race grace; the heartbeat. It prints nothing.

export interface PassOptions {
  dryRun?: boolean;
  /** Keep the outcomes of runs where nothing was done too. */
  everyOutcome?: boolean;
  /** Milliseconds to keep trying for a held lock (the wrapper's and the backoff timer's passes). */
  retryLock?: number;
  /** The pass was started by the installed schedule (cron, launchd, systemd). */
  scheduled?: boolean;
  /** Each outcome as it happens. */
  onOutcome?: (outcome: Outcome) => void;
  /** The run whose agent has just ended (the wrapper's pass): served first by whoever holds the lock. */
  forRun?: string;
}

export type { PassResult } from './requests.js';

/** How long a pass waits for an exit record that may be on its way. */
const EXIT_RACE_MS = 2_000;

/** Passes requested while one runs are folded into it; this bounds the loop. */
const MAX_ROUNDS = 5;

export async function runPass(
  settings: Settings,
  io: Io,
  opts: PassOptions = {},
  deps: PassDeps = REAL_PASS_DEPS,
): Promise<PassResult> {
  if (opts.dryRun) return passOnce(settings, io, opts, deps);
  return serveRequests(
    (again) => passOnce(settings, io, again ? { ...opts, retryLock: 0 } : opts, deps),
    () => deps.root.requested(settings.runsDir),
  );
}

async function passOnce(settings: Settings, io: Io, opts: PassOptions, deps: PassDeps): Promise<PassResult> {
  const root = settings.runsDir;
  const { clock, runs } = deps;
  // A root that is not there yet has no runs; one that cannot be written is said in one line.
  if (!deps.root.usable(root, opts.dryRun ? 'read' : 'write')) return { ran: true, outcomes: [] };
  // Notifications cost a pass nothing (not even loading their code) without targets. Without
  // them the outbox is not touched either: nothing in it is sent (status and doctor say so).
  const hooks = opts.dryRun ? undefined : await deps.hooks(settings, io);
  const ctx: PassContext = { root, settings, io, lockLost: false, hooks, dryRun: !!opts.dryRun };
  const started = clock.now();
  const beat = (pass: Omit<Beat, 'started'>) => heartbeat(root, io, opts, deps, { started, ...pass });
  let release: (() => Promise<void>) | null = null;
  try {
    release = opts.dryRun ? null : await acquire(ctx, opts.retryLock ?? 0, deps, opts.forRun);
  } catch (err) {
    // No lock (a full disk refuses even its directory): still said where status and doctor look.
    beat({ runs: 0, actions: 0, error: ioError(err) });
    throw err;
  }
  if (!opts.dryRun && !release) return { ran: false, outcomes: [] };

  const outcomes: Outcome[] = [];
  const record = (outcome: Outcome | undefined) => {
    if (!outcome) return;
    outcomes.push(outcome);
    opts.onOutcome?.(outcome);
  };
  const runOpts = {
    dryRun: !!opts.dryRun,
    everyOutcome: !!opts.everyOutcome,
    afterGrace: false,
    progress: record,
  };
  let ids: string[] = [];
  let failure: unknown = null;
  try {
    try {
      ids = await rounds();
      if (!ctx.lockLost) hooks?.afterRuns(io.now());
      if (!opts.dryRun && !ctx.lockLost) deps.sweep(root, ids, io.now());
    } catch (err) {
      failure = err;
    }
    if (!opts.dryRun) {
      const actions = outcomes.filter((o) => o.action !== 'none').length;
      const error = failure ? ioError(failure) : passError(outcomes);
      beat({ runs: ids.length, actions, error });
    }
    if (failure) throw failure;
  } finally {
    await release?.();
  }
  // After the lock is free: a slow digest or target never holds up the next pass.
  if (hooks) {
    ctx.views = undefined; // the runs as they are now, not as the last round saw them
    await hooks.afterUnlock(ctx, io.now());
  }
  return { ran: true, outcomes, runs: ids.length };

  async function rounds(): Promise<string[]> {
    let ids: string[] = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (!opts.dryRun) deps.root.clearRequest(root);
      // Only live runs: a finished run costs a pass nothing. A dry run leaves the index alone.
      ids = opts.dryRun ? runs.peek(root) : runs.live(root);
      ctx.views = undefined; // read the backends afresh each round: the last one may have started sessions
      const later: string[] = [];
      // The run that asked for this pass first, then any that ask meanwhile (run-requests.ts).
      const first = opts.forRun && ids.includes(opts.forRun) ? opts.forRun : null;
      const queue = first ? [first, ...ids.filter((i) => i !== first)] : [...ids];
      while (queue.length > 0) {
        if (!opts.dryRun) deps.root.servedFirst(root, queue, ids);
        const id = queue.shift() as string;
        const result = await runs.reconcile(id, ctx, runOpts);
        if (result === RECHECK) later.push(id);
        else record(result);
      }
      // One grace for every run caught in the exit race (after a reboot, that is all of them).
      if (later.length > 0) {
        await clock.sleep(EXIT_RACE_MS);
        ctx.views = undefined;
        for (const id of later) {
          const result = await runs.reconcile(id, ctx, { ...runOpts, afterGrace: true });
          if (result !== RECHECK) record(result);
        }
      }
      if (opts.dryRun || !deps.root.requested(root)) break;
    }
    return ids;
  }
}

interface Beat {
  started: number;
  runs: number;
  actions: number;
  error: { text: string; errno: string | null } | null;
}

/** The heartbeat: when this pass ran, what it found, and since when passes fail, if they do. */
function heartbeat(root: string, io: Io, opts: PassOptions, deps: PassDeps, pass: Beat): void {
  const at = io.now();
  const previous = deps.heartbeat.read(root);
  // scheduledAt proves that the installed schedule fires; passes started by an agent's exit or by
  // hand must not fake it.
  const scheduledAt = opts.scheduled ? at : (previous?.scheduledAt ?? null);
  const failing = pass.error
    ? {
        lastError: pass.error.text,
        ...(pass.error.errno ? { lastErrno: pass.error.errno } : {}),
        failingSince: previous?.failingSince ?? at,
      }
    : {};
  const durationMs = deps.clock.now() - pass.started;
  deps.heartbeat.write(root, {
    at,
    scheduledAt,
    durationMs,
    runs: pass.runs,
    actions: pass.actions,
    ...failing,
  });
}

/**
 * The error a pass records in the heartbeat: the first run's that failed. An error of the system
 * (a full disk) is the same for every run and said alone; any other names its run.
 */
/** A pass's own error, its words and its code. */
const ioError = (err: unknown) => ({ text: describeIoError(err as Error), errno: errnoOf(err as Error) });

function passError(outcomes: readonly Outcome[]): { text: string; errno: string | null } | null {
  const failed = outcomes.find((o) => o.action === 'error');
  if (!failed?.error) return null;
  const { text, errno } = failed.error;
  return { text: errno ? text : `${failed.id}: ${text}`, errno };
}

/** The pass lock; null when another pass holds it (after leaving it a request to run again). */
async function acquire(
  ctx: PassContext,
  retryMs: number,
  { root, clock }: PassDeps,
  forRun: string | undefined,
): Promise<(() => Promise<void>) | null> {
  const rp = rootPaths(ctx.root);
  const onLost = (err: Error) => {
    ctx.lockLost = true;
    ctx.io.stderr(
      `warning: the reconcile lock was lost (${err.message}); this pass starts and finishes nothing more`,
    );
  };
  let release = await root.lock(rp.lock, onLost);
  if (!release && forRun) root.requestRun(ctx.root, forRun);
  // The request is written before each try: a holder that refuses this try lets go after the
  // request exists, and looks for it once free (runPass), so no request is lost.
  for (const deadline = clock.now() + retryMs; !release;) {
    root.request(ctx.root, ctx.io.now());
    release = await root.lock(rp.lock, onLost);
    if (release || clock.now() >= deadline) break;
    await clock.sleep(200);
  }
  return release;
}

/**
 * One run reconciled now, by a caller that holds the pass lock (`finish`): the same steps as a
 * pass, the exit-race grace included; each outcome said as it happens.
 */
export async function reconcileOne(
  id: string,
  ctx: PassContext,
  onOutcome: (outcome: Outcome) => void,
): Promise<void> {
  const opts = { dryRun: false, everyOutcome: true, afterGrace: false, progress: onOutcome };
  let result = await REAL_PASS_DEPS.runs.reconcile(id, ctx, opts);
  if (result === RECHECK) {
    await REAL_PASS_DEPS.clock.sleep(EXIT_RACE_MS);
    ctx.views = undefined;
    result = await REAL_PASS_DEPS.runs.reconcile(id, ctx, { ...opts, afterGrace: true });
  }
  if (result && result !== RECHECK) onOutcome(result);
}
