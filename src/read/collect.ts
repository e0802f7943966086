import { exists, readHead } from '../adapters/files.js';
import { runDirCheck } from '../adapters/owner.js';
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
import { parseFinal, type FinalRow } from './final-row.js';
import { withNotifyWarnings } from './notify-warnings.js';
import { observeRun } from './observe.js';
import { CACHE_MIN_RUNS, loadRowCache, type RowCache } from './row-cache.js';
import { brokenRow, buildRow, countFindings, countQuestions, countsStamp, type StatusRow } from './rows.js';

// The dashboard's rows for a set of runs, read without the pass lock: a finished run from its
// summary, a live one observed as a pass would, a broken one as far as it can still be read.

/** How long a session seen starting without its wrapper is watched before it is shown as lost. */
const SETTLE_MS = 2_000;

export async function collectRows(ids: readonly string[], ctx: ReadContext): Promise<StatusRow[]> {
  const seen: { id: string; row: StatusRow; unsettled?: boolean }[] = [];
  // Many finished runs: their rows from one cache file, not from a summary each.
  const cache = ids.length >= CACHE_MIN_RUNS ? loadRowCache(ctx.root) : null;
  for (const id of ids) {
    // A finished run's row is read without a turn of the event loop: status reads a thousand.
    const got = rowFor(id, ctx, cache);
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
  return withNotifyWarnings(
    ctx.root,
    seen.map((r) => followedUp(r.row, ctx.settings.runsDir)),
  );
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

type Got = { row: StatusRow; unsettled?: boolean } | null;

/** A run's row; null for a run no longer in the runs root (an index may still name it). */
function rowFor(id: string, ctx: ReadContext, cache: RowCache | null): Got | Promise<Got> {
  const paths = runPaths(ctx.root, id);
  // Nothing another user could have planted is believed: the row says what is wrong and the fix.
  const { problem: unsafe, records } = runDirCheck(paths);
  if (unsafe) return { row: brokenRow(id, paths, 'waiting', unsafe, 0) };
  // A finished run's summary was written once; only what the user may still edit is read again.
  const cached = cache && records ? cache.get(id, records) : null;
  const final = cached ? { row: cached } : hasSentinel(paths) ? readFinal(id, paths) : null;
  if (cache && records && final && !cached && 'row' in final) cache.put(id, records, final.row);
  if (final && 'bad' in final) return brokenFinal(id, paths, final.bad);
  if (final) {
    // The user may still answer questions (or add findings): count again only if those changed.
    // Where the run is now: an archived run's summary was written before it moved.
    // One copy of the row, its keys in their order (the stamp left undefined: JSON leaves it out).
    const stamp = final.row.countsStamp;
    const row: FinalRow = { ...final.row, workspace: paths.workspace, countsStamp: undefined };
    const stampNow = countsStamp(paths);
    if (stamp !== undefined && stamp === stampNow) return { row };
    row.findings = countFindings(paths.findings);
    row.questions = countQuestions(paths);
    // Kept counted, with the stamp of what was counted: the next status counts only what changes.
    if (cache && records) cache.put(id, records, { ...row, countsStamp: stampNow });
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

/** A summary is a few kilobytes; one larger than this was not written by overnight. */
const FINAL_MAX_BYTES = 1024 * 1024;

/** The finished run's summary: null when there is none (or it is torn mid-write), else checked. */
function readFinal(id: string, paths: RunPaths): ReturnType<typeof parseFinal> | null {
  let text: string | null;
  try {
    text = readHead(paths.final, FINAL_MAX_BYTES + 1);
  } catch {
    return null;
  }
  if (!text) return null;
  if (text.length > FINAL_MAX_BYTES) return { bad: 'is larger than a summary can be' };
  return parseFinal(text, id);
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
