import { realpathSync, rmSync } from 'node:fs';

import { exists } from '../adapters/files.js';
import { recordedTree } from '../adapters/git-worktree.js';
import {
  addWorktreeOn,
  commitOf,
  detachWorktree,
  reattachWorktree,
  removeWorktree,
  repoAt,
  uncommitted,
  worktrees,
  type GitTree,
} from '../adapters/git.js';
import { UsageError } from '../core/errors.js';
import type { RepoSpec } from '../core/run/types.js';
import type { RepoWork } from './workspace.js';

// A repository run's branch handed from a finished run to its follow-up. A branch is checked out
// in one worktree at a time: the earlier run's worktree lets go of it by being detached at the
// branch's head, which changes none of its files. Checked first, read only; done last.

export interface BranchHandover {
  /** The branch's head: where the follow-up starts, and where the earlier run handed it over. */
  head: string;
  /** The earlier run's worktree, to detach (it holds the branch); null when nothing holds it. */
  detach: GitTree | null;
  /** git still lists the branch in a worktree whose directory is gone. */
  stale: boolean;
}

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** Refuses, in words naming the fix, what would lose work or touch the person's checkout. */
export async function checkHandover(id: string, repo: RepoSpec): Promise<BranchHandover> {
  if (!exists(repo.path) || (await repoAt(repo.path)).kind !== 'work')
    throw new UsageError(
      `${id} worked on the repository ${repo.path}, which is no longer there (moved or deleted?); ` +
        'a follow-up carries on its branch there',
    );
  const head = await commitOf(repo.path, `refs/heads/${repo.branch}`);
  if (!head)
    throw new UsageError(
      `the branch ${repo.branch} of ${id} no longer exists in ${repo.path}; ` +
        'a follow-up carries on that branch: restore it (git branch) and continue again',
    );
  const holder = (await worktrees(repo.path)).find((w) => w.branch === repo.branch);
  if (!holder) return { head, detach: null, stale: false };
  if (holder.prunable || !exists(holder.path)) return { head, detach: null, stale: true };
  if (real(holder.path) !== real(repo.worktree))
    throw new UsageError(
      `the branch ${repo.branch} is checked out in ${holder.path}; a follow-up needs it in a worktree ` +
        'of its own: switch that checkout to another branch, then continue again',
    );
  const tree = await recordedTree(repo);
  if (!tree)
    throw new UsageError(
      `${id}'s worktree ${repo.worktree} is not the one git lists for ${repo.branch} in ${repo.path}; ` +
        'a follow-up needs the branch free: switch that checkout to another branch, then continue again',
    );
  const changes = await uncommitted(tree);
  if (changes.length > 0) {
    const shown = changes.slice(0, 8).map((c) => c.trim());
    const more = changes.length > shown.length ? `, and ${changes.length - shown.length} more` : '';
    throw new UsageError(
      `${id}'s worktree ${repo.worktree} has uncommitted changes, which the follow-up would not ` +
        `have (${shown.join(', ')}${more}); commit them on ${repo.branch} there, or remove them ` +
        '(git stash, git checkout -- <file>), then continue again',
    );
  }
  return { head, detach: tree, stale: false };
}

/** The follow-up's worktree on the branch, made after the earlier one let go; undone in reverse. */
export function handoverWork(h: BranchHandover, next: RepoSpec): RepoWork {
  let detached = false;
  return {
    async make() {
      if (h.detach) {
        await detachWorktree(h.detach);
        detached = true;
      }
      try {
        await addWorktreeOn(next.path, next.worktree, next.branch, h.stale);
      } catch (err) {
        if (h.detach) await reattachWorktree(h.detach, next.branch);
        throw err;
      }
    },
    async undo() {
      await removeWorktree(next.path, next.worktree).catch(() => {});
      rmSync(next.worktree, { recursive: true, force: true });
      // Back on its branch at the same commit: the earlier run's worktree is as it was.
      if (detached && h.detach) await reattachWorktree(h.detach, next.branch);
    },
  };
}
