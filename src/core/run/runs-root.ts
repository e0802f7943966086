// What can be wrong with the runs root, said in one line that names the path, the problem and the
// fix; and the words for a filesystem error code, so no command ever prints errno text. Pure.

import { errnoWords } from '../io-error.js';
import { describeOwnerProblem, type OwnerProblem } from './owner.js';

export type RootProblem =
  /** `path` (the root itself or a directory above it) is a file. */
  | { kind: 'file'; root: string; path: string }
  /** The root and its parent are both missing: a typo, or a disk that is not mounted. */
  | { kind: 'missing-parent'; root: string; parent: string }
  | { kind: 'read-only'; root: string }
  | { kind: 'not-writable'; root: string; path: string }
  | { kind: 'not-readable'; root: string; path: string }
  | { kind: 'full'; root: string }
  /** Another user owns it or can write in it. */
  | { kind: 'owner'; root: string; problem: OwnerProblem }
  | { kind: 'other'; root: string; path: string; code: string };

const MOVE = 'or set OVERNIGHT_HOME (or runs_dir: in config.yaml) to another directory';

/** One line for a person: where, what is wrong, what to do. */
export function describeRootProblem(p: RootProblem): string {
  const root = `the runs root ${p.root}`;
  switch (p.kind) {
    case 'file':
      return p.path === p.root
        ? `${root} is a file, not a directory; move it away, ${MOVE}`
        : `${root} cannot be used: ${p.path} is a file, not a directory; move it away, ${MOVE}`;
    case 'missing-parent':
      return (
        `${root} does not exist, nor does its parent ${p.parent} (a typo, or a disk not mounted?); ` +
        `create ${p.parent} first, ${MOVE}`
      );
    case 'read-only':
      return `${root} is on a read-only filesystem; remount it read-write, ${MOVE} on a writable disk`;
    case 'not-writable':
      return (
        `${root} cannot be written: ${p.path} is not writable by you; give yourself write access, ` + MOVE
      );
    case 'not-readable':
      return `${root} cannot be read: ${p.path} is not readable by you; give yourself access, ${MOVE}`;
    case 'full':
      return `${root} is on a full disk (no space left); free some space, ${MOVE}`;
    case 'owner':
      return describeOwnerProblem(root, p.problem);
    case 'other':
      return `${root} cannot be used: ${p.path}: ${fsErrorWords(p.code)}`;
  }
}

/** A filesystem error code in words (`EROFS` → "read-only filesystem"). */
export function fsErrorWords(code: string): string {
  return errnoWords(code) ?? `failed (${code})`;
}

/** The one line for a filesystem error that no command caught: the path and the problem in words. */
export function describeFsError(e: { code: string; path?: string; dest?: string }): string {
  const where = e.path ?? e.dest;
  return where ? `${where}: ${fsErrorWords(e.code)}` : fsErrorWords(e.code);
}
