import { usableRunsRoot } from '../adapters/runs-root.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { safeLine } from '../core/text.js';
import { finishRun } from '../runs/finish.js';

// `overnight finish <run>`: end the night now, with a report (`stop` ends it without one).

export async function finishCommand(name: string, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  usableRunsRoot(settings.runsDir, 'write');
  const { id } = await resolveRun(name, settings.runsDir, io, 'active', true);
  // A run's reason and a pass's outcome may quote the agent: nothing in them is obeyed.
  for (const line of await finishRun(settings.runsDir, id, settings, io)) io.stdout(safeLine(line));
  return 0;
}
