import { mkdirSync, rmSync } from 'node:fs';

import { exists, writeFileAtomic } from '../adapters/files.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { appendEvent } from '../adapters/store.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { describeIoError } from '../core/io-error.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import type { Cause } from '../core/supervise/causes.js';
import { runPass } from '../reconcile/pass.js';

// A paused run is left exactly as it is: a live agent keeps running, a dead one is not restarted.
// The PAUSE file is the whole state, in the workspace (one run) or in the runs root (every run).

export async function pauseCommand(
  pause: boolean,
  name: string | undefined,
  opts: { all?: boolean },
  io: Io,
): Promise<number> {
  if (!name === !opts.all)
    throw new UsageError(
      'name one run (its name, or a unique prefix of its id) or use --all: ' +
        hint(io, `${pause ? 'pause' : 'resume'} <run>`),
    );
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, pause ? 'create' : 'write');
  let file: string;
  let what: string;
  let paths: ReturnType<typeof runPaths> | null = null;
  if (name) {
    const r = await resolveRun(name, root, io);
    paths = runPaths(root, r.id);
    file = paths.pause;
    what = r.id;
  } else {
    file = rootPaths(root).pauseAll;
    what = 'every run';
  }
  if (pause) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    if (!exists(file)) writeFileAtomic(file, `paused by user at ${io.now().toISOString()}\n`);
    if (paths) record(paths, 'pause', io);
    const lift = hint(io, paths ? `resume ${what}` : 'resume --all');
    io.stdout(`${what}: paused; nothing will be restarted until \`${lift}\``);
  } else {
    // The pause goes first: even a disk too full to record anything does not keep a run paused.
    rmSync(file, { force: true });
    if (paths) record(paths, 'resume', io);
    io.stdout(`${what}: resumed`);
    if (name && exists(rootPaths(root).pauseAll))
      io.stdout(`note: every run is still paused (${hint(io, 'resume --all')})`);
    // A wait that ended while the run was paused armed nothing since: a pass now picks it up
    // (and arms the timer of a wait still to come), with no schedule needed.
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
  return 0;
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
