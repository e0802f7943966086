import { hint, type Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { localTime } from '../core/local-time.js';
import { checkDetails, reviewDetails } from '../core/status/check.js';
import { wantsColour } from '../core/status/colour.js';
import { runDetails } from '../core/status/details.js';
import { repoDetails } from '../core/status/repo.js';
import { timelineBlock } from '../core/status/story-text.js';
import { safeLine, safeText } from '../core/text.js';
import { quietlyFinished, statusView } from '../dashboard/status-view.js';
import type { StatusRow } from '../read/rows.js';

// `overnight status [run]`: the morning dashboard, or one run with the story of its night. What
// it shows is gathered in dashboard/status-view.ts; this prints it.

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
  since?: string;
  state?: string;
  archived?: boolean;
  wide?: boolean;
  /** false with --no-color. */
  color?: boolean;
  check?: boolean;
}

export async function statusCommand(name: string | undefined, opts: StatusOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const view = await statusView(name, opts, settings, io);
  const { rows, filter, picked, dir, now, warnings } = view;
  if (opts.json) {
    // Bytes as read: a thousand finished runs' rows are printed as they were (read/row-cache.ts).
    if (io.stdoutBytes && view.json) {
      io.stdoutBytes(view.json);
      io.stdout('');
    } else io.stdout(Buffer.from(view.json ?? '[]').toString('utf8'));
    for (const w of warnings) io.stderr(w);
    return view.exit;
  }
  const cells = opts.wide ? null : terminalWidth(io);
  if (rows.length === 0 && !picked.more) {
    io.stdout(
      safeLine(
        filter.states || opts.since
          ? 'No runs match.'
          : opts.archived
            ? `No archived runs in ${dir}.`
            : `No runs in ${dir}. Start one with: ${hint(io, 'launch "<task>"')}`,
      ),
    );
  } else {
    const everything = Boolean(name || opts.all || opts.archived || opts.since || filter.states);
    // The board and its cell widths load only for the table: status --json needs neither.
    const [{ formatBoard }, { withWidths }] = await Promise.all([
      import('../core/status/board.js'),
      import('../core/status/fit.js'),
    ]);
    const board = await withWidths(() =>
      formatBoard(rows, now, {
        width: cells,
        colour: wantsColour(io.stdoutIsTty === true, io.env, opts.color === false),
        clock: localTime(),
        passes: view.passes,
        cmd: io.cmd ?? 'overnight',
        ...(everything ? {} : { collapse: (r: StatusRow) => quietlyFinished(r, now) }),
      }),
    );
    // One run named: its row without the summary, then its details and the story of its night.
    for (const line of name ? board.slice(1) : board) io.stdout(line);
    if (picked.more)
      io.stdout(`(older finished runs hidden; ${hint(io, 'status --all')}, or --since 7d, shows them)`);
  }
  const one = view.one;
  if (one) {
    for (const line of runDetails(one.row, one.files, now, localTime())) io.stdout(line);
    for (const line of checkDetails(one.row.verify, one.row.state)) io.stdout(safeLine(line));
    for (const line of reviewDetails(one.row.review)) io.stdout(safeLine(line));
    if (one.branch) for (const line of repoDetails(one.row, one.branch)) io.stdout(safeLine(line));
    for (const line of timelineBlock(one.story.timeline, localTime())) io.stdout(safeLine(line));
  }
  if (warnings.length > 0) {
    const { withWidths, wrap } = await import('../core/status/fit.js');
    const lines = await withWidths(() =>
      safeText(warnings.join('\n'))
        .split('\n')
        .flatMap((line) => wrap(line, cells)),
    );
    io.stdout('');
    for (const l of lines) io.stdout(l);
  }
  return view.exit;
}

/** The terminal's width; COLUMNS, when set, wins (a pipe to a pager that knows its width). */
function terminalWidth(io: Io): number | null {
  const env = Number(io.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return io.columns ?? null;
}
