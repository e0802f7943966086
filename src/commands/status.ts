import { diskSpace } from '../adapters/disk-space.js';
import { exists } from '../adapters/files.js';
import { runsRootWritable, usableRunsRoot } from '../adapters/runs-root.js';
import { listRunIds } from '../adapters/store.js';
import { readHeartbeat, readSupervision } from '../adapters/supervision.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { runFilter } from '../core/run/run-index.js';
import { describeRootProblem } from '../core/run/runs-root.js';
import { checkDetails } from '../core/status/check.js';
import { wantsColour } from '../core/status/colour.js';
import { runDetails } from '../core/status/details.js';
import { diskFullWarning } from '../core/status/disk.js';
import { needCode } from '../core/status/needs.js';
import { repoDetails } from '../core/status/repo.js';
import { timelineBlock } from '../core/status/story-text.js';
import { passFailure, supervisionWarning } from '../core/status/supervision.js';
import { causeOf } from '../core/supervise/legacy-cause.js';
import { isLive } from '../core/supervise/live-states.js';
import { safeJson, safeLine, safeText } from '../core/text.js';
import { collectRows } from '../dashboard/collect.js';
import { byRows, pickRuns, type Picked } from '../dashboard/pick.js';
import { branchDetails, withCommits } from '../dashboard/repo.js';
import type { StatusRow } from '../dashboard/rows.js';
import { newestFindings, readStory } from '../dashboard/story.js';
import { digestWarnings, outboxWarnings } from '../notify/warnings.js';

// `overnight status [run]`: the morning dashboard, or one run with the story of its night.

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

/** Finished runs that ended within this are listed even when they need nothing. */
const LAST_NIGHT_MS = 12 * 3600 * 1000;

export async function statusCommand(name: string | undefined, opts: StatusOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const runsRoot = settings.runsDir;
  const usable = usableRunsRoot(runsRoot, 'read');
  const now = io.now();
  const filter = runFilter(opts, now);
  if ('error' in filter) throw new UsageError(filter.error);
  // One named run may be archived; the table shows either the runs or the archived ones.
  let dir = opts.archived ? rootPaths(runsRoot).archive : runsRoot;
  let picked: Picked = { ids: [], more: false, keep: () => true };
  if (name) {
    const run = await resolveRun(name, runsRoot, io, opts.archived ? 'archived' : 'any');
    dir = run.root;
    picked = { ids: [run.id], more: false, keep: () => true };
  } else if (opts.archived) {
    // Archived runs have no index: every one is read, and only --since leaves some out.
    picked = byRows(listRunIds(dir), opts.since ? filter.since : null);
  } else if (usable) {
    picked = pickRuns(runsRoot, filter);
  }
  let rows = (await collectRows(picked.ids, { root: dir, settings, io })).filter(
    (r) => (!filter.states || filter.states.includes(r.state)) && (name || picked.keep(r)),
  );
  if (opts.json || name) rows = await withCommits(rows);

  // Paused runs wait for the person, not for a pass: only the others need passes.
  const live = rows.filter((r) => isLive(r.state) && r.state !== 'paused').length;
  const { schedule, lastPassAt } = readSupervision(runsRoot);
  // A full disk fails every pass before it can write a heartbeat: looked at directly.
  const diskFull = usable ? diskFullWarning(diskSpace(runsRoot), runsRoot) : null;
  const exit = opts.check && (diskFull || rows.some((r) => needCode(r) !== null)) ? 1 : 0;
  // Passes cannot act on runs they cannot write: said plainly, while the dashboard still shows them.
  const unwritable = live > 0 ? runsRootWritable(runsRoot) : null;
  // Clock text costs a few ms to set up: only made when there is a failure to say.
  const beat = usable ? readHeartbeat(runsRoot) : null;
  const failing = beat?.lastError ? passFailure(beat, localTime()) : null;
  const warnings = [
    diskFull,
    failing ? `warning: ${failing}; nothing is supervised until a pass goes through` : null,
    unwritable ? `warning: no pass can act on these runs: ${describeRootProblem(unwritable)}.` : null,
    supervisionWarning(schedule, lastPassAt, live, now, io.cmd),
    ...(usable ? digestWarnings(runsRoot).map((w) => `warning: ${w}.`) : []),
    ...(usable ? outboxWarnings(runsRoot, settings.notify.length > 0).map((w) => `warning: ${w}.`) : []),
  ].filter((w): w is string => w !== null);
  if (opts.json) {
    // With a run named, its story too: the night's timeline, and its questions as a list (their
    // count, the table's column, is then `openQuestions`).
    const out = name
      ? rows.map((r) => ({ ...r, openQuestions: r.questions, ...readStory(runPaths(dir, r.id), r) }))
      : rows;
    io.stdout(safeJson(out, 2));
    for (const w of warnings) io.stderr(w);
    return exit;
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
    const { formatBoard } = await import('../core/status/board.js');
    const board = formatBoard(rows, now, {
      width: cells,
      colour: wantsColour(io.stdoutIsTty === true, io.env, opts.color === false),
      clock: localTime(),
      passes: { lastPassAt: beat?.at ?? null, scheduled: schedule !== null },
      cmd: io.cmd ?? 'overnight',
      ...(everything ? {} : { collapse: (r: StatusRow) => quietlyFinished(r, now) }),
    });
    // One run named: its row without the summary, then its details and the story of its night.
    for (const line of name ? board.slice(1) : board) io.stdout(line);
    if (picked.more)
      io.stdout(`(older finished runs hidden; ${hint(io, 'status --all')}, or --since 7d, shows them)`);
  }
  const one = name ? rows[0] : undefined;
  if (one) {
    const paths = runPaths(dir, one.id);
    const story = readStory(paths, one);
    const files = { report: exists(paths.report), newest: newestFindings(paths.findings, 5), story };
    for (const line of runDetails(one, files, now, localTime())) io.stdout(line);
    for (const line of checkDetails(one.verify, one.state)) io.stdout(safeLine(line));
    if (one.repo) for (const line of repoDetails(one, await branchDetails(one))) io.stdout(safeLine(line));
    for (const line of timelineBlock(story.timeline, localTime())) io.stdout(safeLine(line));
  }
  if (warnings.length > 0) {
    const { wrap } = await import('../core/status/fit.js');
    io.stdout('');
    for (const line of safeText(warnings.join('\n')).split('\n'))
      for (const l of wrap(line, cells)) io.stdout(l);
  }
  return exit;
}

/**
 * A finished run that needs nothing is counted in one line, not listed, once it is older than the
 * night just gone, or when the person stopped it: the morning shows last night's reports.
 */
function quietlyFinished(r: StatusRow, now: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return false;
  if (causeOf(r) === 'stopped') return true;
  const at = (r.lastTransition?.at as string | undefined) ?? r.lastOutputAt ?? r.endsAt;
  return !at || now.getTime() - new Date(at).getTime() >= LAST_NIGHT_MS;
}

/** The terminal's width; COLUMNS, when set, wins (a pipe to a pager that knows its width). */
function terminalWidth(io: Io): number | null {
  const env = Number(io.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return env;
  return io.columns ?? null;
}
