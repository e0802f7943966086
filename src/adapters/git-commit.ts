import { lstatSync } from 'node:fs';
import { join } from 'node:path';

import type { RunSpec } from '../core/run/types.js';
import { recordedTree } from './git-worktree.js';
import { git, type GitTree } from './git.js';

// overnight commits what the agent left uncommitted in a repository run's worktree: after each
// session when the agent has no shell of its own (no sandbox), and before the final check. With
// git's safe flags (no hooks, no fsmonitor, no signing prompt), on the run's own branch only.

/**
 * Claude Code's sandbox leaves empty, read-only files in the working directory where it guards a
 * path (`.bashrc`, `.gitconfig`, `.claude/settings.json`, …): never the agent's work, never committed.
 */
function isPlaceholder(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isFile() && st.size === 0 && (st.mode & 0o222) === 0;
  } catch {
    return false;
  }
}

export interface Committed {
  /** The new commit, or null when nothing was left to commit. */
  commit: string | null;
  /** How many paths it took. */
  files: number;
}

/** Commits the worktree's changes (new files too) with `subject`; null commit when there are none. */
export async function commitLeftWork(spec: RunSpec, subject: string): Promise<Committed> {
  if (!spec.repo) return { commit: null, files: 0 };
  const tree = await recordedTree(spec.repo);
  if (!tree) throw new Error(`the worktree ${spec.repo.worktree} is not a worktree git knows`);
  const branch = await git(tree, ['symbolic-ref', '--quiet', 'HEAD']);
  // The agent moved the worktree off its branch: nothing is committed anywhere else.
  if (branch.code !== 0 || branch.stdout.trim() !== `refs/heads/${spec.repo.branch}`)
    throw new Error(`the worktree is not on ${spec.repo.branch}; its changes were left uncommitted`);
  const changed = await changedPaths(tree);
  if (changed.length === 0) return { commit: null, files: 0 };
  const exclude = changed.filter((c) => c.untracked && isPlaceholder(join(tree.workTree, c.path)));
  const files = changed.length - exclude.length;
  if (files === 0) return { commit: null, files: 0 };
  const pathspec = [':/', ...exclude.map((c) => `:(top,literal,exclude)${c.path}`)];
  const add = await git(tree, ['add', '--all', '--', ...pathspec]);
  if (add.code !== 0) throw new Error(`git add failed: ${add.error}`);
  const who =
    (await git(tree, ['config', '--get', 'user.email'])).code === 0
      ? []
      : ['-c', 'user.name=overnight', '-c', 'user.email=overnight@localhost'];
  const commit = await git(tree, [
    ...who,
    '-c',
    'commit.gpgsign=false',
    'commit',
    '--quiet',
    '--no-verify',
    '-m',
    subject,
  ]);
  if (commit.code !== 0) throw new Error(`git commit failed: ${commit.error}`);
  const head = await git(tree, ['rev-parse', 'HEAD']);
  return { commit: head.code === 0 ? head.stdout.trim() : null, files };
}

/** The worktree's changed paths (from its top), untracked files one by one; submodules not looked into. */
async function changedPaths(tree: GitTree): Promise<{ path: string; untracked: boolean }[]> {
  const r = await git(tree, [
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=all',
    '--ignore-submodules=all',
  ]);
  if (r.code !== 0) throw new Error(`git status failed: ${r.error}`);
  const out: { path: string; untracked: boolean }[] = [];
  const parts = r.stdout.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i] as string;
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    out.push({ path: entry.slice(3), untracked: code === '??' });
    // A rename or copy names its source next: part of the same change.
    if (code[0] === 'R' || code[0] === 'C') i++;
  }
  return out;
}
