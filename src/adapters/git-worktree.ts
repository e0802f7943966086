import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

import { git, type GitTree } from './git.js';

// Where a run's worktree keeps its git dir, from records the agent cannot write: overnight's own
// (the spec's `repo.gitDir`, recorded when the worktree was made) checked against git's own in the
// person's repository (`<common dir>/worktrees/<name>/gitdir`, which names the worktree's `.git`).
// The worktree's `.git` is the agent's to write: it is never read.

/** What a repository run records of its worktree. */
export interface WorktreeRecord {
  /** The person's repository (its top directory). */
  path: string;
  /** The worktree overnight made. */
  worktree: string;
  /** Its git dir, as recorded at creation; absent for runs made before it was. */
  gitDir?: string;
}

const real = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The repository's common git dir (its `.git`), asked of git in the person's checkout. */
export async function commonGitDir(repo: string): Promise<string | null> {
  const r = await git(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  return r.code === 0 && r.stdout.trim() !== '' ? real(r.stdout.trim()) : null;
}

/** The worktree `gitdir` file of git's admin dir `dir` names, when it is a regular file. */
function namedWorktree(dir: string): string | null {
  try {
    const file = join(dir, 'gitdir');
    if (!lstatSync(file).isFile()) return null;
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * The worktree's git dir: one of the repository's worktree admin dirs that names this worktree
 * (the recorded one, when there is a record). Null when git lists no such worktree (it was
 * removed, the repository moved, or the record does not match git's).
 */
export async function worktreeGitDir(rec: WorktreeRecord): Promise<string | null> {
  const common = await commonGitDir(rec.path);
  if (!common) return null;
  const admin = join(common, 'worktrees');
  const want = join(real(rec.worktree), '.git');
  let candidates: string[];
  if (rec.gitDir) candidates = [rec.gitDir];
  else {
    try {
      candidates = readdirSync(admin).map((name) => join(admin, name));
    } catch {
      return null;
    }
  }
  for (const dir of candidates) {
    const at = real(dir);
    if (dirname(at) !== admin) continue;
    const named = namedWorktree(at);
    if (named !== null && real(dirname(named)) + sep + '.git' === want) return at;
  }
  return null;
}

/** The worktree as git is to see it (its git dir and files), or null when git lists it not. */
export async function recordedTree(rec: WorktreeRecord): Promise<GitTree | null> {
  const gitDir = await worktreeGitDir(rec);
  return gitDir ? { gitDir, workTree: rec.worktree } : null;
}
