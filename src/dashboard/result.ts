import { writeFileAtomic } from '../adapters/files.js';
import type { RunPaths } from '../core/run/paths.js';
import type { StatusRow } from './rows.js';

// result.json beside REPORT.md: a finished run for a script, written by overnight once the run is
// settled. A view, never read back to decide: everything in it is also in the records.

/** Bumped when a field changes meaning or goes away; new fields keep the version. */
export const RESULT_SCHEMA = 1;

export function resultOf(row: StatusRow, paths: RunPaths): Record<string, unknown> {
  return {
    schema: RESULT_SCHEMA,
    id: row.id,
    state: row.state,
    reason: row.reason ?? null,
    verify: row.verify ?? { command: null, verdict: 'none' },
    repo: row.repo
      ? {
          path: row.repo,
          branch: row.branch ?? null,
          base: row.base ?? null,
          commits: row.commits ?? null,
        }
      : null,
    sessions: row.sessions ?? null,
    restarts: row.restarts,
    costUsd: row.costUsd ?? null,
    startedAt: row.startedAt,
    endsAt: row.endsAt,
    questions: row.questions,
    report: row.report ? paths.report : null,
  };
}

export function writeResult(row: StatusRow, paths: RunPaths): void {
  writeFileAtomic(`${paths.workspace}/result.json`, JSON.stringify(resultOf(row, paths), null, 2) + '\n');
}
