import { usableRunsRoot } from '../adapters/runs-root.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { allPaused, passAfterResume, pauseRun, unpauseRun } from '../runs/pause.js';

// `overnight pause|resume [run] [--all]`: leave a run (or every run) exactly as it is, and again
// supervise it.

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
  const id = name ? (await resolveRun(name, root, io)).id : null;
  const what = id ?? 'every run';
  if (pause) {
    pauseRun(root, id, io);
    const lift = hint(io, id ? `resume ${what}` : 'resume --all');
    io.stdout(`${what}: paused; nothing will be restarted until \`${lift}\``);
  } else {
    unpauseRun(root, id, io);
    io.stdout(`${what}: resumed`);
    if (id && allPaused(root)) io.stdout(`note: every run is still paused (${hint(io, 'resume --all')})`);
    await passAfterResume(settings, io);
  }
  return 0;
}
