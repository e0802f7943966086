import { exists } from '../adapters/files.js';
import { recordsCheck, workspaceProblem } from '../adapters/owner.js';
import { isAlive } from '../adapters/processes.js';
import {
  hasSentinel,
  readAgent,
  readRestarts,
  readSentinel,
  readSession,
  readSessionLogs,
  runExists,
} from '../adapters/store.js';
import type { SessionLog } from '../core/agent/stream.js';
import { runPaths, type RunPaths } from '../core/run/paths.js';
import { crashRestarts } from '../core/supervise/exits.js';
import { mayBeStarting } from '../core/supervise/state.js';
import type { ReadContext } from './context.js';
import { fromCache, PrintedRow, readFinal, recounted, summaryRow } from './finished.js';
import { notifyWarnings } from './notify-warnings.js';
import { observeRun } from './observe.js';
import { CACHE_MIN_RUNS, loadRowCache, rowOfText, type RowCache } from './row-cache.js';
import { brokenRow, buildRow, countsStamp, type StatusRow } from './rows.js';

// The dashboard's rows for a set of runs, read without the pass lock: a finished run from its
// summary, a live one observed as a pass would, a broken one as far as it can still be read.

/** How long a session seen starting without its wrapper is watched before it is shown as lost. */
const SETTLE_MS = 2_000;

export async function collectRows(ids: readonly string[], ctx: ReadContext): Promise<StatusRow[]> {
  return (await collect(ids, ctx, false)) as StatusRow[];
}

/**
 * The rows for `status --json`: a finished run's unchanged row is its cached text (a PrintedRow),
 * unless something is added to it (its notifications' failures, a repository's commits).
 */
export function collectPrinted(
  ids: readonly string[],
  ctx: ReadContext,
): Promise<(StatusRow | PrintedRow)[]> {
  return collect(ids, ctx, true);
}

async function collect(
  ids: readonly string[],
  ctx: ReadContext,
  printed: boolean,
): Promise<(StatusRow | PrintedRow)[]> {
  const seen: { id: string; row: StatusRow | PrintedRow; unsettled?: boolean }[] = [];
  // Many finished runs: their rows from one cache file, not from a summary each.
  const cache = ids.length >= CACHE_MIN_RUNS ? loadRowCache(ctx.root) : null;
  const how: How = { cache, printed };
  for (const id of ids) {
    // A finished run's row is read without a turn of the event loop: status reads a thousand.
    const got = rowFor(id, ctx, how);
    const row = got instanceof Promise ? await got : got;
    if (row) seen.push({ id, row: row.row, ...(row.unsettled ? { unsettled: true } : {}) });
  }
  if (!ctx.dryRun) cache?.save();
  // A pass starting a session right now looks like a lost agent: look again, with the backend asked
  // afresh, before showing a crash. Only a session started in the last seconds is looked at so.
  const deadline = Date.now() + SETTLE_MS;
  for (let wait = 50; seen.some((r) => r.unsettled) && Date.now() < deadline; wait *= 2) {
    await new Promise((r) => setTimeout(r, Math.min(wait, deadline - Date.now())));
    ctx.views = undefined;
    for (const r of seen)
      if (r.unsettled)
        Object.assign(r, { unsettled: false }, await liveRow(r.id, runPaths(ctx.root, r.id), ctx));
  }
  // A run's notifications that did not get through are added to its row.
  const notes = notifyWarnings(ctx.root);
  const rows: (StatusRow | PrintedRow)[] = [];
  for (const { row: r } of seen) {
    const note = notes.get(r.id);
    const row =
      r instanceof PrintedRow ? (note ? await unprinted(r, ctx) : r) : followedUp(r, ctx.settings.runsDir);
    if (!row) continue;
    rows.push(note && !(row instanceof PrintedRow) ? withNote(row, note) : row);
  }
  return rows;
}

function withNote(row: StatusRow, note: string[]): StatusRow {
  const failing = note.map((text) => ({ code: 'notify-failing' as const, text }));
  return { ...row, warnings: [...(row.warnings ?? []), ...failing], notifyFailing: true as const };
}

/** A printed row made into its row again (read afresh if its text is not one). */
async function unprinted(p: PrintedRow, ctx: ReadContext): Promise<StatusRow | null> {
  const row = rowOfText(p.text, p.id);
  if (row) return followedUp(row, ctx.settings.runsDir);
  const got = await rowFor(p.id, ctx, { cache: null, printed: false });
  return got && !(got.row instanceof PrintedRow) ? followedUp(got.row, ctx.settings.runsDir) : null;
}

/**
 * A link to a follow-up that is not there (removed, or never placed when `continue` failed) says
 * nothing: the run is shown as not continued. One stat or two, for continued runs only.
 */
function followedUp(row: StatusRow, runsRoot: string): StatusRow {
  if (!row.continuedBy || runExists(runsRoot, row.continuedBy)) return row;
  const { continuedBy: _gone, handedOver: _tip, ...rest } = row;
  return rest;
}

type Got = { row: StatusRow | PrintedRow; unsettled?: boolean } | null;

interface How {
  cache: RowCache | null;
  /** A finished run's cached row may be given as its printed text. */
  printed: boolean;
}

/** A run's row; null for a run no longer in the runs root (an index may still name it). */
function rowFor(id: string, ctx: ReadContext, { cache, printed }: How): Got | Promise<Got> {
  const paths = runPaths(ctx.root, id);
  const { problem: recordsProblem, records } = recordsCheck(paths);
  // A finished run's summary was written once; only what the user may still edit is read again:
  // its questions may be answered (or findings added), counted again only if those changed.
  const cached = cache && records ? cache.get(id, records) : null;
  const stampNow = cached ? countsStamp(paths) : '';
  const hit = cached ? fromCache(cached, id, cached.stamp === stampNow, printed, ctx.settings.runsDir) : null;
  // Nothing another user could have planted is believed: the row says what is wrong and the fix.
  const unsafe = workspaceProblem(paths) ?? recordsProblem;
  if (unsafe) return { row: brokenRow(id, paths, 'waiting', unsafe, 0) };
  if (cached && hit)
    return {
      row:
        hit instanceof PrintedRow || cached.stamp === stampNow
          ? hit
          : recounted(id, paths, hit, stampNow, cache, records),
    };
  const final = hasSentinel(paths) ? readFinal(id, paths) : null;
  if (final && 'bad' in final) return brokenFinal(id, paths, final.bad);
  if (final) {
    const { row, stamp } = summaryRow(final.row, id, paths.workspace);
    const stampNow = countsStamp(paths);
    if (stamp === undefined || stamp !== stampNow)
      return { row: recounted(id, paths, row, stampNow, cache, records) };
    if (cache && records) cache.put(id, records, row, stamp);
    return { row };
  }
  if (!exists(paths.workspace)) return null;
  return liveRow(id, paths, ctx);
}

async function brokenFinal(id: string, paths: RunPaths, bad: string): Promise<Got> {
  // A summary that cannot be trusted is shown as what it is: a broken file, named by its path.
  const problem = `broken file ${paths.final}: it ${bad}; remove it to read the run afresh`;
  return { row: brokenRow(id, paths, await bestEffortState(paths), problem, restartsOf(paths), false) };
}

async function liveRow(
  id: string,
  paths: RunPaths,
  ctx: ReadContext,
): Promise<{ row: StatusRow; unsettled?: boolean }> {
  try {
    const now = ctx.io.now();
    // The observation and the row from one reading of the log.
    let logs: SessionLog[] | undefined;
    const read = () => (logs ??= readSessionLogs(paths, !ctx.dryRun));
    const { spec, obs } = await observeRun(paths, ctx, now, read);
    return { row: buildRow(id, paths, spec, obs, now, read()), unsettled: mayBeStarting(obs, now) };
  } catch (err) {
    // Whatever is wrong with one run, the dashboard still shows every other one.
    return {
      row: brokenRow(id, paths, await bestEffortState(paths), (err as Error).message, restartsOf(paths)),
    };
  }
}

function restartsOf(paths: RunPaths): number {
  try {
    return crashRestarts(readRestarts(paths));
  } catch {
    return 0; // restart.log is unreadable too
  }
}

/** What can still be said of a run whose run.yaml is unusable. */
async function bestEffortState(paths: RunPaths): Promise<StatusRow['state']> {
  try {
    const sentinel = readSentinel(paths);
    if (sentinel) return sentinel.kind === 'DONE' ? 'done' : 'failed';
    const agent = readAgent(paths, readSession(paths));
    if (agent && (await isAlive(agent.pid, agent.startTime))) return 'running';
  } catch {
    // the run's files are unusable too
  }
  return 'waiting';
}
