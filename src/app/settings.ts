import { loadSettings } from '../adapters/config-file.js';
import { describeProblem, type Settings } from '../core/config/settings.js';
import type { Io } from './io.js';

/** Settings for the commands that must keep working with a bad config: each problem is a warning. */
export async function settingsWithWarnings(io: Io): Promise<Settings> {
  const { settings, problems } = await loadSettings({}, io.env);
  for (const p of problems) {
    // A bad notify target is skipped alone, the others kept.
    const then = p.key === 'notify' ? '; skipped' : '; using the default for it';
    io.stderr(`warning: ${describeProblem(p)}${then}`);
  }
  return settings;
}
