import { execa } from 'execa';

import type { Commit } from '../core/status/repo.js';

// Thin adapter over git: argv only, never a shell string. Variables that would point git at
// another repository are dropped, and optional locks are off, so that reading a repository
// (`git status`) never rewrites the person's index. A run's worktree is the agent's to write: git
// is pointed at its git dir from overnight's own record (never through the worktree's `.git`), and
// no setting can make git run a command of the agent's there (fsmonitor, hooks, pager).

const ELSEWHERE = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_EXTERNAL_DIFF',
];

/** Settings on every call, over any config file: nothing git would run as a command of its own. */
const SAFE = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'submodule.recurse=false',
  '-c',
  'diff.external=',
];

/** A worktree as overnight recorded it: its git dir and its files, never found from its `.git`. */
export interface GitTree {
  gitDir: string;
  workTree: string;
}

export interface GitRun {
  code: number;
  stdout: string;
  /** The first line of what git said on stderr: its messages are short and name the problem. */
  error: string;
}

/** git in `at`: a directory of the person's (their checkout), or a run's worktree as recorded. */
export async function git(at: string | GitTree, args: string[]): Promise<GitRun> {
  const env: Record<string, string | undefined> = {
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
  for (const name of ELSEWHERE) env[name] = undefined;
  const where =
    typeof at === 'string' ? ['-C', at] : [`--git-dir=${at.gitDir}`, `--work-tree=${at.workTree}`];
  const cwd = typeof at === 'string' ? undefined : at.gitDir;
  const r = await execa('git', [...SAFE, ...where, ...args], { env, cwd, reject: false, stdin: 'ignore' });
  const stderr = String(r.stderr ?? '').trim();
  const error = stderr.split('\n').find((l) => /^(fatal|error):/.test(l)) ?? stderr.split('\n')[0] ?? '';
  if (r.failed && r.exitCode === undefined) throw new Error(`git could not be run: ${r.shortMessage}`);
  return {
    code: r.exitCode ?? 1,
    stdout: String(r.stdout ?? ''),
    error: error.replace(/^(fatal|error): /, ''),
  };
}

async function answer(cwd: string, args: string[]): Promise<string | null> {
  const r = await git(cwd, args);
  return r.code === 0 ? r.stdout.trim() : null;
}

export type RepoKind = { kind: 'none'; error: string } | { kind: 'bare' } | { kind: 'work'; top: string };

/** What `dir` is: not in a repository, a bare repository (or inside a .git directory), or a checkout. */
export async function repoAt(dir: string): Promise<RepoKind> {
  const r = await git(dir, ['rev-parse', '--is-bare-repository', '--is-inside-git-dir']);
  if (r.code !== 0) return { kind: 'none', error: r.error };
  if (r.stdout.split('\n').some((l) => l.trim() === 'true')) return { kind: 'bare' };
  const top = await answer(dir, ['rev-parse', '--show-toplevel']);
  return top ? { kind: 'work', top } : { kind: 'bare' };
}

/** The full hash of the commit `ref` names, or null when it names none. */
export function commitOf(repo: string, ref: string): Promise<string | null> {
  return answer(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
}

export async function branchExists(repo: string, branch: string): Promise<boolean> {
  return (await git(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0;
}

export async function isBranchName(repo: string, branch: string): Promise<boolean> {
  return !branch.startsWith('-') && (await git(repo, ['check-ref-format', '--branch', branch])).code === 0;
}

/**
 * Paths with uncommitted changes (untracked ones included), as `git status --porcelain` lists them.
 * Submodules are not looked into: their `.git` would be the agent's in a run's worktree.
 */
export async function uncommitted(at: string | GitTree): Promise<string[]> {
  const r = await git(at, ['status', '--porcelain', '--untracked-files=normal', '--ignore-submodules=all']);
  return r.code === 0 ? r.stdout.split('\n').filter((l) => l.trim() !== '') : [];
}

/** Whether `path` exists in commit `commit`. */
export async function hasFile(repo: string, commit: string, path: string): Promise<boolean> {
  return (await git(repo, ['cat-file', '-e', `${commit}:${path}`])).code === 0;
}

/** A new worktree at `path` on a new branch made from `base`; throws with git's message. */
export async function addWorktree(repo: string, path: string, branch: string, base: string): Promise<void> {
  const r = await git(repo, ['worktree', 'add', '--quiet', '-b', branch, '--end-of-options', path, base]);
  if (r.code !== 0) throw new Error(`git worktree add failed: ${r.error}`);
}

/** Removes a worktree, changes in it included (the branch stays); throws with git's message. */
export async function removeWorktree(repo: string, path: string): Promise<void> {
  const r = await git(repo, ['worktree', 'remove', '--force', '--end-of-options', path]);
  if (r.code !== 0) throw new Error(`git worktree remove failed: ${r.error}`);
}

/** Deletes a branch only while it still points at `at` (a branch just made and not yet used). */
export async function deleteBranchAt(repo: string, branch: string, at: string): Promise<void> {
  await git(repo, ['update-ref', '-d', `refs/heads/${branch}`, at]);
}

/**
 * Commits on `branch` since `base`, newest first (at most `max`); null when either is gone. `tip`:
 * where they end, when not at the branch's head (a run that handed its branch on to a follow-up).
 */
export async function commitsSince(
  repo: string,
  base: string,
  branch: string,
  max = 1000,
  tip = `refs/heads/${branch}`,
): Promise<Commit[] | null> {
  const range = `${base}..${tip}`;
  const r = await git(repo, ['log', `--max-count=${max}`, '--format=%H%x09%s', range, '--']);
  if (r.code !== 0) return null;
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const tab = l.indexOf('\t');
      return { sha: l.slice(0, tab), subject: l.slice(tab + 1) };
    });
}

/** `git diff --stat` of the branch against its base: at most `files` file lines and the summary. */
export async function diffstat(
  repo: string,
  base: string,
  branch: string,
  files = 20,
  tip = `refs/heads/${branch}`,
): Promise<string[]> {
  const args = ['diff', '--no-ext-diff', '--no-color', `--stat=100`, `--stat-count=${files}`];
  const r = await git(repo, [...args, base, tip, '--']);
  return r.code === 0 ? r.stdout.split('\n').filter((l) => l.trim() !== '') : [];
}

/** What the branch changed against its base, in numbers (`git diff --numstat`); null when git cannot say. */
export async function diffTotals(
  repo: string,
  base: string,
  branch: string,
  tip = `refs/heads/${branch}`,
): Promise<{ files: number; insertions: number; deletions: number } | null> {
  const r = await git(repo, ['diff', '--no-ext-diff', '--no-color', '--numstat', base, tip, '--']);
  if (r.code !== 0) return null;
  let files = 0;
  let insertions = 0;
  let deletions = 0;
  for (const line of r.stdout.split('\n')) {
    // `<added>\t<deleted>\t<path>`; a binary file is `-\t-\t<path>`.
    const [added, deleted] = line.split('\t', 2);
    if (added === undefined || deleted === undefined || line === '') continue;
    files++;
    insertions += Number(added) || 0;
    deletions += Number(deleted) || 0;
  }
  return { files, insertions, deletions };
}

/** A worktree of a repository, as `git worktree list --porcelain` lists it. */
export interface WorktreeEntry {
  path: string;
  /** The branch checked out there (`refs/heads/` left off), or null when detached or bare. */
  branch: string | null;
  /** Its directory is gone: git keeps the entry until it is pruned. */
  prunable: boolean;
}

export async function worktrees(repo: string): Promise<WorktreeEntry[]> {
  const r = await git(repo, ['worktree', 'list', '--porcelain']);
  if (r.code !== 0) throw new Error(`git worktree list failed: ${r.error}`);
  const out: WorktreeEntry[] = [];
  for (const block of r.stdout.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice('worktree '.length);
    if (!path) continue;
    const ref = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length) ?? null;
    out.push({
      path,
      branch: ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref,
      prunable: lines.some((l) => l === 'prunable' || l.startsWith('prunable ')),
    });
  }
  return out;
}

/** Leaves a worktree on its commit, detached: its branch is free, its files stay as they are. */
export async function detachWorktree(tree: GitTree): Promise<void> {
  const r = await git(tree, ['checkout', '--quiet', '--detach']);
  if (r.code !== 0) throw new Error(`git checkout --detach failed in ${tree.workTree}: ${r.error}`);
}

/** Puts a detached worktree back on `branch` (only where that changes no file: the same commit). */
export async function reattachWorktree(tree: GitTree, branch: string): Promise<void> {
  await git(tree, ['checkout', '--quiet', branch, '--']);
}

/**
 * A new worktree at `path` on an existing branch. `force`: git still lists the branch in a
 * worktree whose directory is gone, which would refuse it otherwise.
 */
export async function addWorktreeOn(
  repo: string,
  path: string,
  branch: string,
  force: boolean,
): Promise<void> {
  const args = [
    'worktree',
    'add',
    '--quiet',
    ...(force ? ['--force'] : []),
    '--end-of-options',
    path,
    branch,
  ];
  const r = await git(repo, args);
  if (r.code !== 0) throw new Error(`git worktree add failed: ${r.error}`);
}
