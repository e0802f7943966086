import { usableRunsRoot } from '../adapters/runs-root.js';
import { hasSentinel, readSentinel } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { ANSI, NO_COLOR } from '../core/agent/render.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { runPaths } from '../core/run/paths.js';
import { safeText } from '../core/text.js';
import { follow, LogPrinter, printAll, printTail } from '../logs/show.js';
import { logNotes } from '../read/story.js';

export interface LogsOptions {
  follow?: boolean;
  raw?: boolean;
  all?: boolean;
  lines?: string;
}

/** Lines of the current session shown without --all. */
export const DEFAULT_LINES = 40;

export async function logsCommand(name: string, opts: LogsOptions, io: Io, isTty: boolean): Promise<number> {
  const lines = opts.lines === undefined ? DEFAULT_LINES : Number(opts.lines);
  if (!Number.isInteger(lines) || lines < 1)
    throw new UsageError(
      `--lines ${JSON.stringify(opts.lines)} is not a number of lines; give one such as 100`,
    );
  if (opts.all && opts.lines !== undefined) throw new UsageError('give --all or --lines, not both');
  const settings = await settingsWithWarnings(io);
  usableRunsRoot(settings.runsDir, 'read');
  const r = await resolveRun(name, settings.runsDir, io, 'any');
  const paths = runPaths(r.root, r.id);
  const palette = isTty && !io.env.NO_COLOR ? ANSI : NO_COLOR;
  // The stream as stored: exact bytes into a pipe or a file; on a terminal, nothing in it is obeyed.
  const raw = !opts.raw ? null : !isTty && io.stdoutBytes ? 'bytes' : 'safe';
  // The night's story says when each session started, why, and how one without a result ended.
  const notes = raw ? null : await logNotes(paths);
  const printer = new LogPrinter({ raw, palette, notes, clock: localTime() }, io);
  const end = opts.all ? printAll(paths, printer) : printTail(paths, lines, printer, io);
  // Following ends with the run (once its log is drained) or with Ctrl-C.
  if (opts.follow) await follow(paths, end, printer);
  if (hasSentinel(paths)) {
    printer.refresh();
    printer.closeSession();
    // The log of a finished run (and following one) ends by saying how the run ended.
    const sentinel = raw ? null : readSentinel(paths);
    if (sentinel) {
      const paint = sentinel.kind === 'DONE' ? palette.bold : palette.red;
      io.stdout(paint(safeText(`■ the run is ${sentinel.kind}: ${sentinel.reason}`)));
    }
  }
  return 0;
}
