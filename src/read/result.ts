import { writeView } from '../adapters/store.js';
import { PRIORITIES, type Priority, type Question } from '../core/agent/questions.js';
import type { RunPaths } from '../core/run/paths.js';
import type { TimelineEntry } from '../core/status/timeline-types.js';
import { oneLine } from '../core/text.js';
import type { StatusRow } from './rows.js';
import { readStory } from './story.js';

// result.json beside REPORT.md: a finished run for a script, written by overnight once the run is
// settled. A view, never read back to decide: everything in it is also in the records. Its schema
// is in docs/records.md ("result.json") and in schema/result.schema.json, which a test checks.

/** Bumped when a field changes meaning or goes away; new fields keep the version. */
export const RESULT_SCHEMA = 2;

/** Open questions listed per priority at most (their titles, one line each). */
const QUESTIONS_LISTED = 50;

/** What git says of a repository run's branch, asked when the result is written. */
export interface BranchFacts {
  commits: { sha: string; subject: string }[] | null;
  diffstat: { files: number; insertions: number; deletions: number } | null;
}

export function resultOf(
  row: StatusRow,
  paths: RunPaths,
  story: { timeline: TimelineEntry[]; questions: Question[] },
  branch: BranchFacts | null,
): Record<string, unknown> {
  return {
    schema: RESULT_SCHEMA,
    id: row.id,
    state: row.state,
    cause: row.cause ?? null,
    reason: row.reason ?? null,
    verify: row.verify ?? { command: null, verdict: 'none' },
    review: row.review ?? null,
    repo: row.repo
      ? {
          path: row.repo,
          branch: row.branch ?? null,
          base: row.base ?? null,
          commits: branch?.commits ?? row.commits ?? null,
          diffstat: branch?.diffstat ?? null,
        }
      : null,
    sessions: row.sessions ?? null,
    restarts: row.restarts,
    costUsd: row.costUsd ?? null,
    startedAt: row.startedAt,
    endsAt: row.endsAt,
    secondsWorked: secondsWorked(story.timeline),
    questions: row.questions,
    openQuestions: byPriority(story.questions),
    report: row.report ? paths.report : null,
  };
}

/** The sessions' uptimes, summed (whole seconds). */
function secondsWorked(timeline: readonly TimelineEntry[]): number {
  let total = 0;
  for (const e of timeline) if (e.kind === 'session' && e.seconds !== null) total += Math.max(0, e.seconds);
  return Math.round(total);
}

/** Open questions' titles by priority, highest first; each list bounded. */
function byPriority(questions: readonly Question[]): Record<Priority, string[]> {
  const out = Object.fromEntries(PRIORITIES.map((p) => [p, [] as string[]])) as Record<Priority, string[]>;
  for (const q of questions) {
    const list = out[q.priority];
    if (!q.answered && list.length < QUESTIONS_LISTED) list.push(oneLine(q.title, 200));
  }
  return out;
}

/**
 * Writes result.json; git is asked (with its safe flags) for a repository run's branch. Returns why
 * it could not be written (a directory the agent made at its name), or null.
 */
export async function writeResult(row: StatusRow, paths: RunPaths): Promise<string | null> {
  const story = readStory(paths, row);
  let branch: BranchFacts | null = null;
  if (row.repo && row.base && row.branch) {
    const { commitsSince, diffTotals } = await import('../adapters/git.js');
    const [commits, diffstat] = await Promise.all([
      commitsSince(row.repo, row.base, row.branch, 1000, row.handedOver),
      diffTotals(row.repo, row.base, row.branch, row.handedOver),
    ]);
    branch = { commits, diffstat };
  }
  const result = resultOf(row, paths, story, branch);
  return writeView(`${paths.workspace}/result.json`, JSON.stringify(result, null, 2) + '\n');
}
