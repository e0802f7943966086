import { exists } from '../adapters/files.js';
import { runsRootWritable, usableRunsRoot } from '../adapters/runs-root.js';
import { listRunIds } from '../adapters/store.js';
import { readSupervision } from '../adapters/supervision.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { resolveRunName } from '../core/run/naming.js';
import { runPaths } from '../core/run/paths.js';
import { describeRootProblem } from '../core/run/runs-root.js';
import { runDetails } from '../core/status/details.js';
import { supervisionWarning } from '../core/status/supervision.js';
import { formatTable } from '../core/status/table.js';
import { safeJson } from '../core/text.js';
import { collectRows } from '../dashboard/collect.js';
import type { StatusRow } from '../dashboard/rows.js';

// `overnight status [run]`: the morning dashboard, or one run with its details.

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
}

/** Finished runs older than this leave the table (not the JSON) unless --all. */
const RECENT_MS = 3 * 24 * 3600 * 1000;

export async function statusCommand(name: string | undefined, opts: StatusOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  let ids = usableRunsRoot(root, 'read') ? listRunIds(root) : [];
  if (name) {
    const r = resolveRunName(name, ids);
    if ('error' in r) throw new UsageError(r.error);
    ids = [r.id];
  }
  const rows = await collectRows(ids, { root, settings, io });

  const now = io.now();
  const live = rows.filter((r) => ['running', 'waiting', 'synthesizing'].includes(r.state)).length;
  const { schedule, lastPassAt } = readSupervision(root);
  // Passes cannot act on runs they cannot write: said plainly, while the dashboard still shows them.
  const unwritable = live > 0 ? runsRootWritable(root) : null;
  const warning =
    [
      unwritable ? `warning: no pass can act on these runs: ${describeRootProblem(unwritable)}.` : null,
      supervisionWarning(schedule, lastPassAt, live, now),
    ]
      .filter(Boolean)
      .join('\n') || null;
  if (opts.json) {
    io.stdout(safeJson(rows, 2));
    if (warning) io.stderr(warning);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(`No runs in ${root}. Start one with: overnight launch "<task>"`);
    return 0;
  }
  const shown = name || opts.all ? rows : rows.filter((r) => isRecent(r, now));
  for (const line of formatTable(shown, now)) io.stdout(line);
  const hidden = rows.length - shown.length;
  if (hidden > 0) io.stdout(`(${hidden} older finished runs hidden; overnight status --all shows them)`);
  const one = name ? rows[0] : undefined;
  if (one) {
    const files = { report: exists(runPaths(root, one.id).report) };
    for (const line of runDetails(one, files, now, localTime())) io.stdout(line);
  }
  if (warning) io.stdout(`\n${warning}`);
  return 0;
}

function isRecent(r: StatusRow, now: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return true;
  const last = r.lastOutputAt ?? r.endsAt;
  return !last || now.getTime() - new Date(last).getTime() < RECENT_MS;
}
