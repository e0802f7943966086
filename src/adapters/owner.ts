import { lstatSync, statSync, type Stats } from 'node:fs';

import { describeOwnerProblem, linkProblem, ownerProblem, type OwnerProblem } from '../core/run/owner.js';
import type { RunPaths } from '../core/run/paths.js';

// Who owns and who can write what a pass reads: the runs root, a run's directories, an outbox file.

/** This user's uid; null where there are none (Windows). Asked once: status asks for every run. */
let uid: number | null | undefined;
export const myUid = (): number | null => (uid ??= process.getuid?.() ?? null);

/** The problem with `path` (followed if a link); null when it is fine or does not exist. */
export function ownerProblemAt(path: string, follow = true): OwnerProblem | null {
  try {
    const st = follow ? statSync(path) : lstatSync(path);
    return ownerProblem({ path, uid: st.uid, mode: st.mode & 0o777 }, myUid());
  } catch {
    return null;
  }
}

/** The problem with `path` when it is a symbolic link another user made; null otherwise. */
export function foreignLinkAt(path: string): OwnerProblem | null {
  try {
    const st = lstatSync(path);
    return st.isSymbolicLink() ? linkProblem({ path, uid: st.uid, mode: st.mode & 0o777 }, myUid()) : null;
  } catch {
    return null;
  }
}

/**
 * Why a run's directory (and its records, where they are) must not be used, in one line with the
 * fix; null when only the person can write them.
 */
export function runDirProblem(paths: Pick<RunPaths, 'workspace' | 'state'>): string | null {
  return workspaceProblem(paths) ?? recordsCheck(paths).problem;
}

/** Why the run's own directory must not be used (another user could write in it); null if fine. */
export function workspaceProblem(paths: Pick<RunPaths, 'workspace'>): string | null {
  const dir = ownerProblemAt(paths.workspace);
  return dir ? describeOwnerProblem(`the run's directory ${paths.workspace}`, dir) : null;
}

/** The records directory's problem, or its stat when it was read (status keys its row cache on it). */
export function recordsCheck(paths: Pick<RunPaths, 'state'>): {
  problem: string | null;
  records: Stats | null;
} {
  let st: Stats | undefined;
  try {
    st = statSync(paths.state, { throwIfNoEntry: false });
  } catch {
    return { problem: null, records: null };
  }
  if (!st) return { problem: null, records: null };
  const records = ownerProblem({ path: paths.state, uid: st.uid, mode: st.mode & 0o777 }, myUid());
  if (records)
    return { problem: describeOwnerProblem(`the run's records ${paths.state}`, records), records: null };
  return { problem: null, records: st };
}
