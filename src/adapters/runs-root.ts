import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

import { OperationalError } from '../core/errors.js';
import { describeRootProblem, type RootProblem } from '../core/run/runs-root.js';
import { markLayout } from './legacy-layout.js';
import { foreignLinkAt, ownerProblemAt } from './owner.js';

// The runs root checked before a command uses it, so that whatever is wrong with it is said in
// one line naming the path and the problem, never as errno text from deep inside a write.

/**
 * `read`: status, logs (a missing root is no runs yet). `write`: reconcile, stop (a missing root
 * is nothing to do). `create`: launch, pause, schedule install (a missing root is made, 0700).
 * For every use, a missing parent is a problem: a typo, or a disk that is not mounted.
 */
export type RootUse = 'read' | 'write' | 'create';

const code = (err: unknown) => (err as NodeJS.ErrnoException).code ?? 'EIO';

/** The first directory above `path` that is not one: the file in the way, or null. */
function fileInTheWay(path: string): string | null {
  for (let p = path; ; p = dirname(p)) {
    try {
      return statSync(p).isDirectory() ? null : p;
    } catch {
      if (dirname(p) === p) return null;
    }
  }
}

function problemOf(root: string, path: string, err: unknown): RootProblem {
  switch (code(err)) {
    case 'EROFS':
      return { kind: 'read-only', root };
    case 'EACCES':
    case 'EPERM':
      return { kind: 'not-writable', root, path };
    case 'ENOSPC':
    case 'EDQUOT':
      return { kind: 'full', root };
    case 'ENOTDIR':
    case 'EEXIST':
      return { kind: 'file', root, path: fileInTheWay(root) ?? root };
    default:
      return { kind: 'other', root, path, code: code(err) };
  }
}

/** What is wrong with the runs root for this use; 'absent' when it does not exist and may not. */
export function probeRunsRoot(root: string, use: RootUse): RootProblem | 'absent' | null {
  let isDir: boolean;
  try {
    isDir = statSync(root).isDirectory();
  } catch (err) {
    if (code(err) === 'EACCES') return { kind: 'not-readable', root, path: root };
    if (code(err) !== 'ENOENT') return problemOf(root, root, err);
    const file = fileInTheWay(root);
    if (file) return { kind: 'file', root, path: file };
    const parent = dirname(root);
    if (!isDirectory(parent)) return { kind: 'missing-parent', root, parent };
    if (use !== 'create') return 'absent';
    try {
      mkdirSync(root, { mode: 0o700 });
      // A new root holds no run of the old layout: no directory in it is ever taken for one.
      markLayout(root);
    } catch (e) {
      return problemOf(root, parent, e);
    }
    return null;
  }
  if (!isDir) return { kind: 'file', root, path: root };
  // Another user who can write here could plant a run, or a notification a pass would send; one
  // who made the root a link of theirs decides where it leads (the kernel may not stop it).
  const owner = foreignLinkAt(root) ?? ownerProblemAt(root);
  if (owner) return { kind: 'owner', root, problem: owner };
  try {
    accessSync(root, use === 'read' ? constants.R_OK | constants.X_OK : constants.W_OK | constants.X_OK);
  } catch (err) {
    if (use === 'read' && code(err) !== 'EROFS') return { kind: 'not-readable', root, path: root };
    return problemOf(root, root, err);
  }
  return null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The runs root ready for this use, or an OperationalError with the one line that says what is
 * wrong. False when it does not exist and `use` does not create it (no runs, nothing to do).
 */
export function usableRunsRoot(root: string, use: RootUse): boolean {
  const problem = probeRunsRoot(root, use);
  if (problem === 'absent') return false;
  if (problem) throw new OperationalError(describeRootProblem(problem));
  return true;
}

/** Whether passes can write in the runs root (status warns when they cannot). */
export function runsRootWritable(root: string): RootProblem | null {
  const problem = probeRunsRoot(root, 'write');
  return problem === 'absent' ? null : problem;
}
