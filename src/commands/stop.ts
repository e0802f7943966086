import { usableRunsRoot } from '../adapters/runs-root.js';
import { listRunIds } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { OperationalError, UsageError } from '../core/errors.js';
import { stopRuns } from '../runs/stop.js';

// `overnight stop [run] [--all]`: end a run now, without a report (`finish` writes one).

export interface StopOptions {
  all?: boolean;
}

export async function stopCommand(name: string | undefined, opts: StopOptions, io: Io): Promise<number> {
  if (!name && !opts.all)
    throw new UsageError('name a run to stop (its name, or a unique prefix of its id), or use --all');
  if (name && opts.all) throw new UsageError('give either a run or --all, not both');
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, 'write');
  let named: string | null = null;
  if (name) {
    named = (await resolveRun(name, root, io, 'active', true)).id;
  } else if (listRunIds(root).length === 0) {
    io.stdout('No unfinished runs to stop.');
    return 0;
  }
  const unsettled = await stopRuns(root, named, settings, io, (line) => io.stdout(line));
  if (unsettled > 0) throw new OperationalError(`${unsettled} run(s) may still have an agent starting`);
  return 0;
}
