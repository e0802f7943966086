import { mkdirSync, rmSync } from 'node:fs';

import { exists, writeFileAtomic } from '../adapters/files.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { appendEvent } from '../adapters/store.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { rootPaths, runPaths } from '../core/run/paths.js';

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
  const root = (await settingsWithWarnings(io)).runsDir;
  usableRunsRoot(root, pause ? 'create' : 'write');
  let file: string;
  let what: string;
  if (name) {
    const r = await resolveRun(name, root, io);
    const paths = runPaths(root, r.id);
    file = paths.pause;
    what = r.id;
    appendEvent(paths, io.now(), { action: pause ? 'pause' : 'resume', reason: 'by user' });
  } else {
    file = rootPaths(root).pauseAll;
    what = 'every run';
  }
  if (pause) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    if (!exists(file)) writeFileAtomic(file, `paused by user at ${io.now().toISOString()}\n`);
    io.stdout(`${what}: paused; nothing will be restarted until \`${hint(io, 'resume')}\``);
  } else {
    rmSync(file, { force: true });
    io.stdout(`${what}: resumed; the next reconcile pass supervises it again`);
    if (name && exists(rootPaths(root).pauseAll))
      io.stdout(`note: every run is still paused (${hint(io, 'resume --all')})`);
  }
  return 0;
}
