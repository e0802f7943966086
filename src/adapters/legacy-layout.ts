import { copyFileSync, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

import { isRunId } from '../core/run/naming.js';
import { recordsDir, recordsRoot } from '../core/run/paths.js';
import { readText, writeFileAtomic } from './files.js';

// Runs made before overnight's records left the run's directory (the agent's working directory)
// kept them there: `<run>/.overnight/`, run.yaml, output.log, restart.log, PAUSE, DONE/FAILED.
// The first command or pass that meets such a runs root moves them once, to
// `<root>/.overnight/<run id>/`, each step a rename (a live agent's output.log keeps its inode, so
// its output follows), run.yaml last: a run is moved once its run.yaml is in its records. A crash
// between steps is finished by the next caller; two callers at once each find the other's renames
// done. The root is marked when every run in it (and its archive) is moved: one stat after that;
// a root or archive overnight makes is marked as it is made, so no run's directory is ever taken
// for an old run's afterwards. Existing records are never merged with files found in a directory.

const LAYOUT = 2;
const MOVED_FILES = ['output.log', 'restart.log', 'PAUSE'];
const VIEWS = ['DONE', 'FAILED'];

function kind(path: string): 'file' | 'dir' | 'other' | null {
  try {
    const st = lstatSync(path);
    return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
  } catch {
    return null;
  }
}

function moveIfFile(from: string, to: string): void {
  if (kind(from) !== 'file' || kind(to) !== null) return;
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // another caller moved it
  }
}

/**
 * Only regular files and directories come along: the agent could write the old records, and a link
 * among them would have overnight read (or write) through it. Links are removed, never followed.
 */
function dropLinks(dir: string, depth = 0): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const k = kind(path);
    if (k === 'other') unlinkSync(path);
    else if (k === 'dir' && depth < 2) dropLinks(path, depth + 1);
  }
}

/**
 * What became of one run: `moved` now, `none` (nothing of the old layout in it), or `conflict`:
 * it has records of the current layout already, and old-layout files in its directory too. Those
 * can only have been made since, by the agent: they are never merged into the records, never read.
 */
export type Migration = 'moved' | 'none' | 'conflict';

/**
 * Moves one run's records out of its directory into a temp directory of the records root (which
 * the agent cannot write), then renames that into place: the records appear whole or not at all.
 * A caller that died midway left the temp directory; the next one finishes it.
 */
export function moveRunRecords(root: string, id: string): Migration {
  const ws = join(root, id);
  const legacy = join(ws, '.overnight');
  const rec = recordsDir(root, id);
  if (kind(join(ws, 'run.yaml')) === null && kind(legacy) === null) return 'none';
  if (kind(rec) !== null) return 'conflict';
  const tmp = join(recordsRoot(root), `.migrating-${id}`);
  mkdirSync(recordsRoot(root), { recursive: true, mode: 0o700 });
  if (kind(legacy) === 'dir') {
    if (kind(tmp) === null) {
      try {
        renameSync(legacy, tmp);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    } else {
      for (const name of readdirSync(legacy)) moveIfFile(join(legacy, name), join(tmp, name));
      try {
        rmdirSync(legacy);
      } catch {
        // something of the agent's is left in it: it stays, unread
      }
    }
  }
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  dropLinks(tmp);
  for (const name of MOVED_FILES) moveIfFile(join(ws, name), join(tmp, name));
  // The sentinels stay in the run's directory as views; their records are copies.
  for (const name of VIEWS)
    if (kind(join(ws, name)) === 'file' && kind(join(tmp, name)) === null)
      copyFileSync(join(ws, name), join(tmp, name));
  moveIfFile(join(ws, 'run.yaml'), join(tmp, 'run.yaml'));
  try {
    renameSync(tmp, rec);
  } catch (err) {
    // Another caller placed it first.
    if (!['ENOENT', 'EEXIST', 'ENOTEMPTY'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  return 'moved';
}

function layoutMark(root: string): string {
  return join(recordsRoot(root), '.layout');
}

/** Marks a runs root (or an archive) overnight has just made: it holds no run of the old layout. */
export function markLayout(root: string): void {
  mkdirSync(recordsRoot(root), { recursive: true, mode: 0o700 });
  writeFileAtomic(layoutMark(root), `${LAYOUT}\n`);
}

/**
 * Makes sure every run of a runs root (or an archive) keeps its records outside its directory.
 * Returns the ids moved now and the runs refused as conflicts (for the caller to say so); costs
 * one read once the root is marked.
 */
export function ensureLayout(root: string): { moved: string[]; conflicts: string[] } {
  // No root yet, or not a directory: nothing to move (the command's own check says what is wrong).
  if (kind(root) !== 'dir') return { moved: [], conflicts: [] };
  if (readText(layoutMark(root))?.trim() === String(LAYOUT)) return { moved: [], conflicts: [] };
  const moved: string[] = [];
  const conflicts: string[] = [];
  for (const id of readdirSync(root)) {
    if (!isRunId(id)) continue;
    const m = moveRunRecords(root, id);
    if (m === 'moved') moved.push(id);
    else if (m === 'conflict') conflicts.push(id);
  }
  markLayout(root);
  return { moved, conflicts };
}
