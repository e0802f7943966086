import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { parseDuration } from '../core/config/duration.js';
import { UsageError } from '../core/errors.js';
import { rootPaths } from '../core/run/paths.js';
import { safeLine } from '../core/text.js';
import { archiveRun, finishedBefore } from '../runs/archive.js';

// `overnight archive <run> | --finished-before <duration>`: finished runs out of the dashboard.

export interface ArchiveOptions {
  finishedBefore?: string;
}

export async function archiveCommand(
  name: string | undefined,
  opts: ArchiveOptions,
  io: Io,
): Promise<number> {
  if (!name === (opts.finishedBefore === undefined))
    throw new UsageError('name one run to archive, or give --finished-before <duration> (e.g. 7d), not both');
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, 'write');
  let ids: string[];
  if (name) ids = [(await resolveRun(name, root, io)).id];
  else {
    const age = parseDuration(opts.finishedBefore as string);
    if (age === undefined)
      throw new UsageError(
        `--finished-before ${JSON.stringify(opts.finishedBefore)} is not a duration; give e.g. 12h or 7d`,
      );
    ids = finishedBefore(root, new Date(io.now().getTime() - age * 1000));
    if (ids.length === 0) io.stdout(`No run finished more than ${opts.finishedBefore} ago.`);
  }
  if (ids.length === 0) return 0;
  // Under the pass lock: no pass looks at a run while it moves.
  const release = await waitLock(rootPaths(root).lock, 60_000, () => {});
  try {
    for (const id of ids) {
      io.stdout(safeLine(`${id}: archived to ${await archiveRun(root, id, io.now())}`));
    }
  } finally {
    await release();
  }
  io.stdout(`(${hint(io, 'status --archived')} lists archived runs)`);
  return 0;
}
