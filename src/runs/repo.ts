import { realpathSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

import { readText } from '../adapters/files.js';
import { branchExists, commitOf, hasFile, isBranchName, repoAt, uncommitted } from '../adapters/git.js';
import { UsageError } from '../core/errors.js';
import { isSubdir } from '../core/run/bounds.js';

// A repository run's launch checks: everything is read, nothing is written, so a refusal leaves
// the repository as it was.

export interface RepoRequest {
  path: string;
  base?: string;
  branch?: string;
}

export interface RepoChoice {
  /** The repository's top directory. */
  top: string;
  /** The full hash of the base commit, and how the person named it. */
  base: string;
  baseRef: string;
  /** Where below the top `--repo` pointed (`lib` for `~/src/app/lib`), or null for the top. */
  subdir: string | null;
  warnings: string[];
}

export async function checkRepo(req: RepoRequest, env: NodeJS.ProcessEnv): Promise<RepoChoice> {
  const dir = resolve(req.path);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing: said below
  }
  if (!isDir) throw new UsageError(`--repo ${req.path}: no such directory; give the repository's directory`);
  const at = await repoAt(dir);
  if (at.kind === 'none')
    throw new UsageError(
      `--repo ${req.path} is not a git repository (${at.error}); give the directory of a git checkout`,
    );
  if (at.kind === 'bare')
    throw new UsageError(
      `--repo ${req.path} is a bare repository (or inside a .git directory): it has no checkout to ` +
        'branch from; give the directory of a clone with a working tree',
    );
  const top = realpathSync(at.top);
  const baseRef = req.base ?? 'HEAD';
  const base = await commitOf(top, baseRef);
  if (!base)
    throw new UsageError(
      req.base === undefined
        ? `--repo ${req.path} has no commits yet; commit something first, or give --base`
        : `--base ${req.base} names no commit in ${top}; give a branch, a tag or a commit hash`,
    );
  // A directory inside the repository (a monorepo's package): the agent starts there in the worktree.
  const below = relative(top, realpathSync(dir)).split(sep).join('/');
  const subdir = below === '' ? null : below;
  if (subdir !== null && (!isSubdir(subdir) || !(await hasFile(top, base, subdir))))
    throw new UsageError(
      `--repo ${req.path}: the directory ${subdir} is not in ${base.slice(0, 12)} (${baseRef}), ` +
        "so the run's worktree would not have it; commit it first, or give the repository's top",
    );
  const warnings: string[] = [];
  const changed = await uncommitted(top);
  if (changed.length > 0)
    warnings.push(
      `warning: ${top} has uncommitted changes ` +
        `(${changed.length} ${changed.length === 1 ? 'path' : 'paths'}); ` +
        `they are not in the run's worktree, which starts from ${base.slice(0, 12)} (${baseRef})`,
    );
  const untrusted = await untrustedSettings(top, base, env);
  if (untrusted) warnings.push(untrusted);
  return { top, base, baseRef, subdir, warnings };
}

/** Refuses a branch name git would not take, or one the repository already has. */
export async function checkBranch(top: string, branch: string, given: boolean): Promise<void> {
  const flag = given ? `--branch ${branch}` : `the branch ${branch}`;
  if (!(await isBranchName(top, branch)))
    throw new UsageError(`${flag} is not a valid git branch name; give another with --branch`);
  if (await branchExists(top, branch))
    throw new UsageError(
      `${flag} already exists in ${top}; the run needs a new branch: give another with --branch`,
    );
}

/**
 * Claude Code ignores a repository's `.claude/settings.json` permission rules in `-p` unless the
 * repository is trusted (its worktrees share that trust): say so rather than let a night be denied.
 */
async function untrustedSettings(top: string, base: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (!(await hasFile(top, base, '.claude/settings.json'))) return null;
  const config = env.CLAUDE_CONFIG_DIR
    ? join(env.CLAUDE_CONFIG_DIR, '.claude.json')
    : join(env.HOME ?? '', '.claude.json');
  let trusted = false;
  try {
    const doc = JSON.parse(readText(config) ?? '{}') as {
      projects?: Record<string, { hasTrustDialogAccepted?: boolean }>;
    };
    trusted = doc.projects?.[top]?.hasTrustDialogAccepted === true;
  } catch {
    // unreadable: not trusted as far as anyone can tell
  }
  return trusted
    ? null
    : `warning: Claude Code ignores the permission rules in ${top}/.claude/settings.json until the ` +
        `repository is trusted: run claude there once and accept, or give the rules with --allowed-tools`;
}
