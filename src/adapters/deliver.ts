import type { RunSpec } from '../core/run/types.js';
import { CHANGED_MAX } from '../core/verify/records.js';
import { changedTestFiles, scriptsDiffer } from '../core/verify/test-files.js';
import { commitLeftWork } from './git-commit.js';
import { recordedTree } from './git-worktree.js';
import { git } from './git.js';

// The night's work, delivered before its final check: what the agent left uncommitted committed on
// the run's branch by overnight, so that the check runs on exactly the commit the person is handed,
// and the verdict names it. With it: whether the branch holds anything at all, and which of the
// files it changed are tests or test configuration.

export interface Delivered {
  commit?: string;
  unchanged?: boolean;
  changedTests?: string[];
  /** Why the work could not be delivered (the worktree off its branch, say). */
  undelivered?: string;
}

const SUBJECT = "overnight: the night's uncommitted work, committed for the final check";
const PACKAGE_BYTES = 1024 * 1024;

export async function deliver(spec: RunSpec): Promise<Delivered> {
  const repo = spec.repo;
  if (!repo) return {};
  try {
    await commitLeftWork(spec, SUBJECT);
    const tree = await recordedTree(repo);
    if (!tree) return { undelivered: `the worktree ${repo.worktree} is not a worktree git knows` };
    const head = (await git(tree, ['rev-parse', '--verify', `refs/heads/${repo.branch}`])).stdout.trim();
    if (!/^[0-9a-f]{40,64}$/.test(head)) return { undelivered: `the branch ${repo.branch} is gone` };
    if (head === repo.base) return { commit: head, unchanged: true };
    const diff = await git(tree, ['diff', '--no-renames', '--name-only', '-z', repo.base, head]);
    const changed = diff.code === 0 ? diff.stdout.split('\0').filter((p) => p !== '') : [];
    const scripts = new Map<string, boolean>();
    for (const path of changed.filter((p) => p.endsWith('package.json'))) {
      const at = async (rev: string) => {
        const r = await git(tree, ['show', `${rev}:${path}`]);
        return r.code === 0 ? r.stdout.slice(0, PACKAGE_BYTES) : null;
      };
      scripts.set(path, scriptsDiffer(await at(repo.base), await at(head)));
    }
    const tests = changedTestFiles(
      changed,
      spec.verify?.command ?? '',
      (p) => scripts.get(p) ?? false,
      repo.subdir,
    );
    return { commit: head, changedTests: tests.filter((t) => t.length <= 300).slice(0, CHANGED_MAX) };
  } catch (err) {
    return { undelivered: (err as Error).message };
  }
}
