import { exists } from '../adapters/files.js';
import { liveRunIds, readFinished } from '../adapters/run-index.js';
import { listRunIds } from '../adapters/store.js';
import { readHeartbeat, readSupervision } from '../adapters/supervision.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { resolveRunName } from '../core/run/naming.js';
import { runPaths } from '../core/run/paths.js';
import { FinishedPicker, runFilter, type RunFilter } from '../core/run/run-index.js';
import { runDetails } from '../core/status/details.js';
import { passFailure, supervisionWarning } from '../core/status/supervision.js';
import { formatTable } from '../core/status/table.js';
import { collectRows } from '../dashboard/collect.js';
import type { StatusRow } from '../dashboard/rows.js';

// `overnight status [run]`: the morning dashboard, or one run with its details.

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
  since?: string;
  state?: string;
}

export async function statusCommand(name: string | undefined, opts: StatusOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  const now = io.now();
  const filter = runFilter(opts, now);
  if ('error' in filter) throw new UsageError(filter.error);
  const picked = name ? namedRun(root, name) : pickRuns(root, filter);
  const rows = (await collectRows(picked.ids, { root, settings, io })).filter(
    (r) => (!filter.states || filter.states.includes(r.state)) && (name || picked.keep(r)),
  );

  const live = rows.filter((r) => ['running', 'waiting', 'synthesizing'].includes(r.state)).length;
  const { schedule, lastPassAt } = readSupervision(root);
  // Clock text costs a few ms to set up: only made when there is a failure to say.
  const beat = readHeartbeat(root);
  const failing = beat?.lastError ? passFailure(beat, localTime()) : null;
  const warnings = [
    ...(failing ? [`warning: ${failing}; nothing is supervised until a pass goes through`] : []),
    ...[supervisionWarning(schedule, lastPassAt, live, now)].filter((w) => w !== null),
  ];
  if (opts.json) {
    io.stdout(JSON.stringify(rows, null, 2));
    for (const w of warnings) io.stderr(w);
    return 0;
  }
  if (rows.length === 0 && !picked.more) {
    io.stdout(
      filter.states || opts.since
        ? 'No runs match.'
        : `No runs in ${root}. Start one with: overnight launch "<task>"`,
    );
  } else {
    for (const line of formatTable(rows, now)) io.stdout(line);
    if (picked.more)
      io.stdout('(older finished runs hidden; overnight status --all, or --since 7d, shows them)');
  }
  const one = name ? rows[0] : undefined;
  if (one) {
    const files = { report: exists(runPaths(root, one.id).report) };
    for (const line of runDetails(one, files, now, localTime())) io.stdout(line);
  }
  if (warnings.length > 0) io.stdout(['', ...warnings].join('\n'));
  return 0;
}

interface Picked {
  ids: string[];
  /** Finished runs outside the window were left out. */
  more: boolean;
  /** Whether a row read stays (runs without an index are judged by their rows). */
  keep: (row: StatusRow) => boolean;
}

function namedRun(root: string, name: string): Picked {
  const r = resolveRunName(name, listRunIds(root));
  if ('error' in r) throw new UsageError(r.error);
  return { ids: [r.id], more: false, keep: () => true };
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
  if (live === null) {
    let more = false;
    const keep = (r: StatusRow) => {
      const recent = isRecent(r, since);
      if (!recent) more = true;
      return recent;
    };
    return {
      ids: listRunIds(root),
      get more() {
        return more;
      },
      keep,
    };
  }
  const picker = new FinishedPicker(since);
  readFinished(root, picker);
  // A run the index names but the runs root no longer holds is left out by collectRows.
  const ids = [...new Set([...live, ...picker.ids])].sort();
  return { ids, more: picker.more, keep: () => true };
}

function isRecent(r: StatusRow, since: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return true;
  const last = r.lastOutputAt ?? r.endsAt;
  return !last || new Date(last).getTime() >= since.getTime();
}
