import { mtime } from '../adapters/files.js';
import { readInside } from '../adapters/inside.js';
import { liveRunIds, readFinished } from '../adapters/run-index.js';
import { hasSentinel, listRunIds } from '../adapters/store.js';
import { reportHead } from '../core/digest/report.js';
import type { DigestRun } from '../core/digest/types.js';
import { reviewLine } from '../core/review/words.js';
import { runPaths, type RunPaths } from '../core/run/paths.js';
import { FinishedPicker } from '../core/run/run-index.js';
import { changedTestsLine, verdictLine } from '../core/verify/verdict-text.js';
import type { VerifyResult } from '../core/verify/verdict.js';
import { collectRows } from './collect.js';
import type { ReadContext } from './context.js';
import type { StatusRow } from './rows.js';
import { readStory } from './story.js';

// The digest's runs gathered from disk: which runs the window holds, each one's row, story and
// the head of its report. Rendering is pure (core/digest/).

/** Enough of REPORT.md for its first lines, however long the report is. */
const REPORT_HEAD_BYTES = 8192;

/** When anything the supervisor records for the run last changed: a few stats, no reads. */
function lastChange(paths: RunPaths): number {
  const files = [paths.events, paths.outputLog, paths.done, paths.failed, paths.session];
  return Math.max(0, ...files.map((f) => mtime(f)?.getTime() ?? 0));
}

/**
 * Runs still going, and runs that ended or changed since `since`. The candidates come from the
 * runs root's indexes (the live runs, and the runs finished in the window), so old finished runs
 * are never opened; without the indexes, from a listing of the root.
 */
export function runsInWindow(root: string, since: Date): string[] {
  const live = liveRunIds(root);
  const picker = new FinishedPicker(since);
  if (live !== null) readFinished(root, picker);
  const ids = live === null ? listRunIds(root) : [...new Set([...live, ...picker.ids])].sort();
  return ids.filter((id) => {
    const paths = runPaths(root, id);
    return !hasSentinel(paths) || lastChange(paths) >= since.getTime();
  });
}

/** The head of REPORT.md, when it is a regular file inside the run (a link out is not followed). */
function readReport(paths: RunPaths): DigestRun['report'] {
  const got = readInside(paths.workspace, paths.report, REPORT_HEAD_BYTES);
  return got ? { path: paths.report, head: reportHead(got.text, 6, got.whole) } : null;
}

function digestRun(row: StatusRow, paths: RunPaths): DigestRun {
  const story = readStory(paths, row);
  return {
    id: row.id,
    task: row.task,
    state: row.state,
    reason: row.reason,
    costUsd: row.costUsd ?? 0,
    startedAt: row.startedAt ? new Date(row.startedAt) : null,
    endsAt: row.endsAt ? new Date(row.endsAt) : null,
    workspace: row.workspace,
    report: readReport(paths),
    findings: row.findings,
    restarts: row.restarts,
    maxRestarts: row.maxRestarts,
    timeline: story.timeline,
    questions: story.questions,
    ...(row.cause ? { cause: row.cause } : {}),
    ...(row.onOverage ? { onOverage: true } : {}),
    ...(row.notifyFailing ? { notifyFailing: true } : {}),
    ...(row.problem ? { problem: row.problem } : {}),
    ...(row.warnings?.length ? { warnings: row.warnings } : {}),
    ...(row.continues ? { continues: row.continues } : {}),
    ...(row.continuedBy ? { continuedBy: row.continuedBy } : {}),
    ...(row.verify ? { verify: digestVerdict(row.verify) } : {}),
    ...(row.review ? { review: { verdict: row.review.verdict, line: reviewLine(row.review) } } : {}),
  };
}

export async function gatherDigest(since: Date, ctx: ReadContext): Promise<DigestRun[]> {
  const ids = runsInWindow(ctx.root, since);
  const rows = await collectRows(ids, ctx);
  return rows.map((row) => digestRun(row, runPaths(ctx.root, row.id)));
}

/** The verdict as the digest shows it: its line, and the tests the night changed. */
function digestVerdict(v: VerifyResult): { verdict: string; line: string; tests?: string } {
  const tests = changedTestsLine(v);
  return { verdict: v.verdict, line: verdictLine(v), ...(tests ? { tests } : {}) };
}
