import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { rootPaths } from '../core/run/paths.js';
import { safeLine } from '../core/text.js';
import { unarchiveRun } from '../runs/archive.js';

// `overnight unarchive <run>`: an archived run back in the dashboard, where archive found it.

export async function unarchiveCommand(name: string, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, 'write');
  const { id } = await resolveRun(name, root, io, 'archived').catch(async (err: unknown) => {
    // A run in the dashboard is named as such, not as no run at all.
    const active = await resolveRun(name, root, { ...io, stderr: () => {} }, 'active').catch(() => null);
    if (!active) throw err;
    throw new UsageError(
      `${active.id} is not archived; ${hint(io, 'status --archived')} lists the archived runs`,
    );
  });
  // Under the pass lock, as archive: no pass looks at a run while it moves.
  const release = await waitLock(rootPaths(root).lock, 60_000, () => {});
  try {
    io.stdout(safeLine(`${id}: back in ${unarchiveRun(root, id, io.now())}`));
  } finally {
    await release();
  }
  io.stdout(`(${hint(io, `status ${id}`)} shows it)`);
  return 0;
}
