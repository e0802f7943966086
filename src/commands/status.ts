import { exists } from '../adapters/files.js';
import { liveRunIds, readFinished } from '../adapters/run-index.js';
import { runsRootWritable, usableRunsRoot } from '../adapters/runs-root.js';
import { listRunIds } from '../adapters/store.js';
import { readHeartbeat, readSupervision } from '../adapters/supervision.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { FinishedPicker, runFilter, type RunFilter } from '../core/run/run-index.js';
import { describeRootProblem } from '../core/run/runs-root.js';
import { runDetails } from '../core/status/details.js';
import { repoDetails } from '../core/status/repo.js';
import { passFailure, supervisionWarning } from '../core/status/supervision.js';
import { formatTable } from '../core/status/table.js';
import { safeJson, safeLine, safeText } from '../core/text.js';
import { collectRows } from '../dashboard/collect.js';
import { branchDetails, withCommits } from '../dashboard/repo.js';
import type { StatusRow } from '../dashboard/rows.js';
import { readStory } from '../dashboard/story.js';
import { digestWarnings } from '../notify/warnings.js';

// `overnight status [run]`: the morning dashboard, or one run with its details.

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
  since?: string;
  state?: string;
  archived?: boolean;
}

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

  const live = rows.filter((r) => ['running', 'waiting', 'synthesizing'].includes(r.state)).length;
  const { schedule, lastPassAt } = readSupervision(runsRoot);
  // Passes cannot act on runs they cannot write: said plainly, while the dashboard still shows them.
  const unwritable = live > 0 ? runsRootWritable(runsRoot) : null;
  // Clock text costs a few ms to set up: only made when there is a failure to say.
  const beat = usable ? readHeartbeat(runsRoot) : null;
  const failing = beat?.lastError ? passFailure(beat, localTime()) : null;
  const warnings = [
    failing ? `warning: ${failing}; nothing is supervised until a pass goes through` : null,
    unwritable ? `warning: no pass can act on these runs: ${describeRootProblem(unwritable)}.` : null,
    supervisionWarning(schedule, lastPassAt, live, now, io.cmd),
    ...(usable ? digestWarnings(runsRoot).map((w) => `warning: ${w}.`) : []),
  ].filter((w): w is string => w !== null);
  if (opts.json) {
    // With a run named, its story too: the night's timeline, and its questions as a list (their
    // count, the table's column, is then `openQuestions`).
    const out = name
      ? rows.map((r) => ({ ...r, openQuestions: r.questions, ...readStory(runPaths(dir, r.id), r) }))
      : rows;
    io.stdout(safeJson(out, 2));
    for (const w of warnings) io.stderr(w);
    return 0;
  }
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
    for (const line of formatTable(rows, now)) io.stdout(line);
    if (picked.more)
      io.stdout(`(older finished runs hidden; ${hint(io, 'status --all')}, or --since 7d, shows them)`);
  }
  const one = name ? rows[0] : undefined;
  if (one) {
    const files = { report: exists(runPaths(dir, one.id).report) };
    for (const line of runDetails(one, files, now, localTime())) io.stdout(line);
    if (one.repo) for (const line of repoDetails(one, await branchDetails(one))) io.stdout(safeLine(line));
  }
  if (warnings.length > 0) io.stdout(safeText(['', ...warnings].join('\n')));
  return 0;
}

interface Picked {
  ids: string[];
  /** Finished runs outside the window were left out. */
  more: boolean;
  /** Whether a row read stays (runs without an index are judged by their rows). */
  keep: (row: StatusRow) => boolean;
}

/**
 * Every live run and the finished runs of the window, from the runs root's indexes: an old
 * finished run is never opened. Without the indexes (no pass has run since an upgrade) every run
 * is read and judged by its row.
 */
function pickRuns(root: string, filter: RunFilter): Picked {
  // Every run asked for (--all, --json): one listing of the runs root does it.
  if (!filter.since) return { ids: listRunIds(root), more: false, keep: () => true };
  const since = filter.since;
  const live = liveRunIds(root);
  if (live === null) return byRows(listRunIds(root), since);
  const picker = new FinishedPicker(since);
  readFinished(root, picker);
  // A run the index names but the runs root no longer holds is left out by collectRows.
  const ids = [...new Set([...live, ...picker.ids])].sort();
  return { ids, more: picker.more, keep: () => true };
}

/** Runs judged by their rows: finished ones before `since` are left out (none when null). */
function byRows(ids: string[], since: Date | null): Picked {
  let more = false;
  const keep = (r: StatusRow) => {
    const recent = !since || isRecent(r, since);
    if (!recent) more = true;
    return recent;
  };
  return {
    ids,
    get more() {
      return more;
    },
    keep,
  };
}

function isRecent(r: StatusRow, since: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return true;
  const last = r.lastOutputAt ?? r.endsAt;
  return !last || new Date(last).getTime() >= since.getTime();
}
