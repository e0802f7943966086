import { commitsSince, diffstat } from '../adapters/git.js';
import type { RepoRow } from '../core/status/repo.js';

// What a repository run's branch holds now, asked of git when status shows it: the branch may
// have moved since the run finished (a person's fixups, a continued run).

/** The rows with their commits filled in (git is asked only for repository runs). */
export async function withCommits<R extends RepoRow>(rows: readonly R[]): Promise<R[]> {
  return Promise.all(
    rows.map(async (r) =>
      r.repo && r.base && r.branch ? { ...r, commits: await commitsSince(r.repo, r.base, r.branch) } : r,
    ),
  );
}

/** The branch's diffstat against its base, for one run's details. */
export async function diffstatOf(r: RepoRow): Promise<string[]> {
  return r.repo && r.base && r.branch && r.commits ? diffstat(r.repo, r.base, r.branch) : [];
}
