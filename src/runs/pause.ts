import { mkdirSync, rmSync } from 'node:fs';

import { exists, writeFileAtomic } from '../adapters/files.js';
import { appendEvent } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import { describeIoError } from '../core/io-error.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import type { Cause } from '../core/supervise/causes.js';
import { runPass } from '../reconcile/pass.js';

// A paused run is left exactly as it is: a live agent keeps running, a dead one is not restarted.
// The PAUSE file is the whole state, in the workspace (one run) or in the runs root (every run).

/** Pauses the run `id`, or with null every run. */
export function pauseRun(root: string, id: string | null, io: Io): void {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const file = pauseFile(root, id);
  if (!exists(file)) writeFileAtomic(file, `paused by user at ${io.now().toISOString()}\n`);
  if (id) record(runPaths(root, id), 'pause', io);
}

/** Lifts the pause of the run `id`, or with null that of every run. */
export function unpauseRun(root: string, id: string | null, io: Io): void {
  // The pause goes first: even a disk too full to record anything does not keep a run paused.
  rmSync(pauseFile(root, id), { force: true });
  if (id) record(runPaths(root, id), 'resume', io);
}

/** Whether every run is paused. */
export function allPaused(root: string): boolean {
  return exists(rootPaths(root).pauseAll);
}

/**
 * A wait that ended while the run was paused armed nothing since: a pass now picks it up (and
 * arms the timer of a wait still to come), with no schedule needed. A pass that fails is a warning.
 */
export async function passAfterResume(settings: Settings, io: Io): Promise<void> {
  try {
    const pass = await runPass(settings, io, {
      retryLock: 5000,
      onOutcome: (o) => (o.action === 'error' ? io.stderr : io.stdout)(`${o.id}: ${o.message}`),
    });
    if (!pass.ran) io.stdout('a reconcile pass is running; it runs once more for the resumed runs');
  } catch (err) {
    io.stderr(
      `warning: the pass after resume failed (${describeIoError(err as Error)}); the next one tries again`,
    );
  }
}

function pauseFile(root: string, id: string | null): string {
  return id ? runPaths(root, id).pause : rootPaths(root).pauseAll;
}

/** The events log says who paused and resumed; a log that cannot be written does not stop either. */
function record(paths: ReturnType<typeof runPaths>, action: 'pause' | 'resume', io: Io): void {
  try {
    appendEvent(paths, io.now(), {
      action,
      cause: (action === 'pause' ? 'paused' : 'unpaused') satisfies Cause,
      reason: 'by user',
    });
  } catch (err) {
    io.stderr(
      `warning: the ${action} could not be recorded in the run's events log ` +
        `(${describeIoError(err as Error)})`,
    );
  }
}
