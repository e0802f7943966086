import { diskSpace } from '../adapters/disk-space.js';
import { exists } from '../adapters/files.js';
import { runsRootWritable, usableRunsRoot } from '../adapters/runs-root.js';
import { listRunIds } from '../adapters/store.js';
import { readHeartbeat, readSupervision } from '../adapters/supervision.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import type { Settings } from '../core/config/settings.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { runFilter, type RunFilter } from '../core/run/run-index.js';
import { describeRootProblem } from '../core/run/runs-root.js';
import { diskFullWarning } from '../core/status/disk.js';
import { printedRow } from '../core/status/json-row.js';
import { needCode } from '../core/status/needs.js';
import type { BranchDetails } from '../core/status/repo.js';
import type { FindingFile } from '../core/status/story-text.js';
import { passFailure, supervisionWarning } from '../core/status/supervision.js';
import { causeOf } from '../core/supervise/legacy-cause.js';
import { isLive } from '../core/supervise/live-states.js';
import { jsonList, jsonListItem, safeJson } from '../core/text.js';
import { collectPrinted, collectRows } from '../read/collect.js';
import { PrintedRow } from '../read/finished.js';
import { digestWarnings, outboxWarnings } from '../read/notify-warnings.js';
import type { StatusRow } from '../read/rows.js';
import { newestFindings, readStory, type Story } from '../read/story.js';
import { byRows, pickRuns, type Picked } from './pick.js';
import { branchDetails, withCommits } from './repo.js';

// What `overnight status [run]` shows, gathered: the rows, the warnings under them, the exit code
// of --check and, with one run named, its story. commands/status.ts only prints it.

export interface StatusViewOptions {
  json?: boolean;
  all?: boolean;
  since?: string;
  state?: string;
  archived?: boolean;
  check?: boolean;
}

/** One run named: what its details and the story of its night are made of. */
export interface OneRun {
  row: StatusRow;
  story: Story;
  files: { report: boolean; newest: FindingFile[]; story: Story };
  /** Its branch's diffstat and worktree (a repository run, in text). */
  branch: BranchDetails | null;
}

export interface StatusView {
  /** The runs root, or the archive, the rows were read from. */
  dir: string;
  rows: StatusRow[];
  picked: Picked;
  filter: RunFilter;
  warnings: string[];
  exit: number;
  now: Date;
  /** Whether a schedule is installed, and when the last pass ran. */
  passes: { lastPassAt: Date | null; scheduled: boolean };
  /**
   * With --json, the rows as JSON, in UTF-8 (a run named: each with its story); with every run
   * listed, `rows` holds only the rows not printed from the row cache as they were.
   */
  json: Uint8Array | null;
  one: OneRun | null;
}

/** Finished runs that ended within this are listed even when they need nothing. */
const LAST_NIGHT_MS = 12 * 3600 * 1000;

export async function statusView(
  name: string | undefined,
  opts: StatusViewOptions,
  settings: Settings,
  io: Io,
): Promise<StatusView> {
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
  const ctx = { root: dir, settings, io };
  // The list as JSON prints finished runs' cached rows as they were printed: nothing judges them.
  const printed = opts.json && !name && !opts.check && !filter.since;
  const listed = (
    printed ? await collectPrinted(picked.ids, ctx) : await collectRows(picked.ids, ctx)
  ).filter(
    (r) =>
      (!filter.states || filter.states.includes(r.state)) &&
      (r instanceof PrintedRow || name || picked.keep(r)),
  );
  let rows = listed.filter((r): r is StatusRow => !(r instanceof PrintedRow));
  if (opts.json || name) rows = await withCommits(rows);

  // Paused runs wait for the person, not for a pass: only the others need passes.
  const live = rows.filter((r) => isLive(r.state) && r.state !== 'paused').length;
  const { schedule, lastScheduledAt } = readSupervision(runsRoot);
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
    supervisionWarning(schedule, lastScheduledAt, live, now, io.cmd),
    ...(usable ? digestWarnings(runsRoot).map((w) => `warning: ${w}.`) : []),
    ...(usable ? outboxWarnings(runsRoot, settings.notify.length > 0).map((w) => `warning: ${w}.`) : []),
  ].filter((w): w is string => w !== null);
  const view = {
    dir,
    rows,
    picked,
    filter,
    warnings,
    exit,
    now,
    passes: { lastPassAt: beat?.at ?? null, scheduled: schedule !== null },
  };
  if (opts.json) {
    // With a run named, its story too: the night's timeline, and its questions as a list (their
    // count, the table's column, is `openQuestions` in every row).
    if (name) {
      const json = rows.map((r) => ({ ...printedRow(r), ...readStory(runPaths(dir, r.id), r) }));
      return { ...view, json: Buffer.from(safeJson(json, 2)), one: null };
    }
    let made = 0;
    const items = listed.map((r) =>
      r instanceof PrintedRow ? r.text : jsonListItem(printedRow(rows[made++] as StatusRow)),
    );
    return { ...view, json: jsonList(items), one: null };
  }
  const row = name ? rows[0] : undefined;
  return { ...view, json: null, one: row ? await oneRun(dir, row) : null };
}

async function oneRun(dir: string, row: StatusRow): Promise<OneRun> {
  const paths = runPaths(dir, row.id);
  const story = readStory(paths, row);
  const files = { report: exists(paths.report), newest: newestFindings(paths.findings, 5), story };
  return { row, story, files, branch: row.repo ? await branchDetails(row) : null };
}

/**
 * A finished run that needs nothing is counted in one line, not listed, once it is older than the
 * night just gone, or when the person stopped it: the morning shows last night's reports.
 */
export function quietlyFinished(r: StatusRow, now: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return false;
  if (causeOf(r) === 'stopped') return true;
  const at = (r.lastTransition?.at as string | undefined) ?? r.lastOutputAt ?? r.endsAt;
  return !at || now.getTime() - new Date(at).getTime() >= LAST_NIGHT_MS;
}
