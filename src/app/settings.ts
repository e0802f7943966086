import { join } from 'node:path';

import { loadSettings } from '../adapters/config-file.js';
import { ensureLayout } from '../adapters/legacy-layout.js';
import { probeRunsRoot } from '../adapters/runs-root.js';
import { describeProblem, type Settings } from '../core/config/settings.js';
import { recordsDir, recordsRoot, rootPaths } from '../core/run/paths.js';
import type { Io } from './io.js';

/** Settings for the commands that must keep working with a bad config: each problem is a warning. */
export async function settingsWithWarnings(io: Io): Promise<Settings> {
  const { settings, problems } = await loadSettings({}, io.env);
  for (const p of problems) {
    // A bad notify target is skipped alone, the others kept.
    const then = p.key === 'notify' ? '; skipped' : '; using the default for it';
    io.stderr(`warning: ${describeProblem(p)}${then}`);
  }
  layoutOnce(settings.runsDir, io);
  return settings;
}

/**
 * Runs made by an earlier version keep overnight's records in their directories: moved out once,
 * by whichever command meets them first, and said. A root that cannot be written is left as it is.
 */
function layoutOnce(root: string, io: Io): void {
  // A root other users could write is refused by the command itself; nothing is moved in it.
  if (probeRunsRoot(root, 'read') !== null) return;
  for (const dir of [root, rootPaths(root).archive]) {
    try {
      const { moved, conflicts } = ensureLayout(dir);
      for (const id of conflicts)
        io.stderr(
          `warning: ${join(dir, id)} holds run.yaml or .overnight/ of the old layout, and the run has ` +
            `records in ${recordsDir(dir, id)} already: those files were not merged, and are never read`,
        );
      if (moved.length > 0)
        io.stderr(
          `note: moved overnight's records of ${moved.length} run${moved.length === 1 ? '' : 's'} ` +
            `out of their directories, into ${recordsRoot(dir)} (where the agent cannot write)`,
        );
    } catch (err) {
      io.stderr(`warning: could not move the records of older runs in ${dir}: ${(err as Error).message}`);
    }
  }
}
