import { exists, readText } from '../adapters/files.js';
import { isAlive } from '../adapters/processes.js';
import {
  hasSentinel,
  listRunIds,
  readAgent,
  readRestarts,
  readSentinel,
  readSession,
} from '../adapters/store.js';
import { readSupervision } from '../adapters/supervision.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { resolveRunName } from '../core/run/naming.js';
import { runPaths, type RunPaths } from '../core/run/paths.js';
import { runDetails } from '../core/status/details.js';
import { formatTable, supervisionWarning } from '../core/status/table.js';
import { crashRestarts } from '../core/supervise/decide.js';
import { mayBeStarting } from '../core/supervise/state.js';
import {
  brokenRow,
  buildRow,
  countFindings,
  countQuestions,
  countsStamp,
  type StatusRow,
} from '../dashboard/rows.js';
import { observeRun, type PassContext } from '../reconcile/act.js';

export interface StatusOptions {
  json?: boolean;
  all?: boolean;
}

/** How long a session seen starting without its wrapper is watched before it is shown as lost. */
const SETTLE_MS = 2_000;

/** Finished runs older than this leave the table (not the JSON) unless --all. */
const RECENT_MS = 3 * 24 * 3600 * 1000;

export async function statusCommand(name: string | undefined, opts: StatusOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  let ids = listRunIds(root);
  if (name) {
    const r = resolveRunName(name, ids);
    if ('error' in r) throw new UsageError(r.error);
    ids = [r.id];
  }
  const ctx: PassContext = { root, settings, io };
  const seen: { id: string; row: StatusRow; unsettled?: boolean }[] = [];
  for (const id of ids) seen.push({ id, ...(await rowFor(id, ctx)) });
  // A pass starting a session right now looks like a lost agent: look again, with tmux asked
  // afresh, before showing a crash. Only a session started in the last seconds is looked at so.
  const deadline = Date.now() + SETTLE_MS;
  for (let wait = 50; seen.some((r) => r.unsettled) && Date.now() < deadline; wait *= 2) {
    await new Promise((r) => setTimeout(r, Math.min(wait, deadline - Date.now())));
    ctx.panes = undefined;
    for (const r of seen) if (r.unsettled) Object.assign(r, { unsettled: false }, await rowFor(r.id, ctx));
  }
  const rows = seen.map((r) => r.row);

  const now = io.now();
  const live = rows.filter(
    (r) => r.state === 'running' || r.state === 'waiting' || r.state === 'synthesizing',
  ).length;
  const { schedule, lastPassAt } = readSupervision(root);
  const warning = supervisionWarning(schedule, lastPassAt, live, now);
  if (opts.json) {
    io.stdout(JSON.stringify(rows, null, 2));
    if (warning) io.stderr(warning);
    return 0;
  }
  if (rows.length === 0) {
    io.stdout(`No runs in ${root}. Start one with: overnight launch "<task>"`);
    return 0;
  }
  const shown = name || opts.all ? rows : rows.filter((r) => isRecent(r, now));
  for (const line of formatTable(shown, now)) io.stdout(line);
  if (shown.length < rows.length)
    io.stdout(
      `(${rows.length - shown.length} older finished runs hidden; overnight status --all shows them)`,
    );
  if (name && rows[0])
    for (const line of runDetails(rows[0], { report: exists(runPaths(root, rows[0].id).report) }, now))
      io.stdout(line);
  if (warning) io.stdout(`\n${warning}`);
  return 0;
}

function isRecent(r: StatusRow, now: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return true;
  const last = r.lastOutputAt ?? r.endsAt;
  return !last || now.getTime() - new Date(last).getTime() < RECENT_MS;
}

async function rowFor(id: string, ctx: PassContext): Promise<{ row: StatusRow; unsettled?: boolean }> {
  const paths = runPaths(ctx.root, id);
  // A finished run's summary was written once; only what the user may still edit is read again.
  const final = hasSentinel(paths) ? readFinal(paths) : null;
  if (final) {
    // The user may still answer questions (or add findings): count again only if those changed.
    const { countsStamp: stamp, ...row } = final;
    if (stamp !== undefined && stamp === countsStamp(paths)) return { row };
    return { row: { ...row, findings: countFindings(paths.findings), questions: countQuestions(paths) } };
  }
  try {
    const { spec, obs } = await observeRun(id, paths, ctx);
    const now = ctx.io.now();
    return { row: buildRow(id, paths, spec, obs, now), unsettled: mayBeStarting(obs, now) };
  } catch (err) {
    // Whatever is wrong with one run, the dashboard still shows every other one.
    let restarts = 0;
    try {
      restarts = crashRestarts(readRestarts(paths));
    } catch {
      // restart.log is unreadable too
    }
    return { row: brokenRow(id, paths, await bestEffortState(paths), (err as Error).message, restarts) };
  }
}

function readFinal(paths: RunPaths): (StatusRow & { countsStamp?: string }) | null {
  try {
    const text = readText(paths.final);
    return text ? (JSON.parse(text) as StatusRow & { countsStamp?: string }) : null;
  } catch {
    return null;
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
