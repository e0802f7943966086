import { exists } from '../adapters/files.js';
import type { BranchDetails, RepoRow } from '../core/status/repo.js';

// What a repository run's branch holds now, asked of git when status shows it: the branch may
// have moved since the run finished (a person's fixups); a run continued by another shows its own
// commits, up to where it handed the branch on. git's adapter (and
// execa) load only when a repository run is shown: startup is most of a status.

/** The rows with their commits filled in (git is asked only for repository runs). */
export async function withCommits<R extends RepoRow>(rows: readonly R[]): Promise<R[]> {
  if (!rows.some((r) => r.repo)) return [...rows];
  const { commitsSince } = await import('../adapters/git.js');
  return Promise.all(
    rows.map(async (r) =>
      r.repo && r.base && r.branch
        ? { ...r, commits: await commitsSince(r.repo, r.base, r.branch, 1000, r.handedOver) }
        : r,
    ),
  );
}

/** For one run's details: the branch's diffstat, and what its worktree holds that is not committed. */
export async function branchDetails(r: RepoRow): Promise<BranchDetails> {
  if (!r.repo || !r.base || !r.branch) return { diffstat: [], worktree: 'gone' };
  const { diffstat, uncommitted } = await import('../adapters/git.js');
  const { recordedTree } = await import('../adapters/git-worktree.js');
  // git sees the worktree through the git dir the repository lists for it, never its own `.git`.
  const tree =
    r.worktree && exists(r.worktree) ? await recordedTree({ path: r.repo, worktree: r.worktree }) : null;
  const worktree = tree ? (await uncommitted(tree)).length : 'gone';
  return { diffstat: r.commits ? await diffstat(r.repo, r.base, r.branch, 20, r.handedOver) : [], worktree };
}
