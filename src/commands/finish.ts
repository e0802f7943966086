import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { finishRun } from '../runs/finish.js';

// `overnight finish <run>`: end the night now, with a report (`stop` ends it without one).

export async function finishCommand(name: string, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const { id } = await resolveRun(name, settings.runsDir, io);
  for (const line of await finishRun(settings.runsDir, id, settings, io)) io.stdout(line);
  return 0;
}
