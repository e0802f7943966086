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
// done. The root is marked when every run in it (and its archive) is moved: one stat after that.

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

/** Moves one run's records out of its directory; true when anything was moved. */
export function moveRunRecords(root: string, id: string): boolean {
  const ws = join(root, id);
  const legacy = join(ws, '.overnight');
  const rec = recordsDir(root, id);
  if (kind(join(ws, 'run.yaml')) === null && kind(legacy) === null) return false;
  mkdirSync(recordsRoot(root), { recursive: true, mode: 0o700 });
  if (kind(legacy) === 'dir') {
    if (kind(rec) === null) {
      try {
        renameSync(legacy, rec);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    } else {
      for (const name of readdirSync(legacy)) moveIfFile(join(legacy, name), join(rec, name));
      try {
        rmdirSync(legacy);
      } catch {
        // something of the agent's is left in it: it stays, unread
      }
    }
  }
  mkdirSync(rec, { recursive: true, mode: 0o700 });
  dropLinks(rec);
  for (const name of MOVED_FILES) moveIfFile(join(ws, name), join(rec, name));
  // The sentinels stay in the run's directory as views; their records are copies.
  for (const name of VIEWS)
    if (kind(join(ws, name)) === 'file' && kind(join(rec, name)) === null)
      copyFileSync(join(ws, name), join(rec, name));
  moveIfFile(join(ws, 'run.yaml'), join(rec, 'run.yaml'));
  return true;
}

function layoutMark(root: string): string {
  return join(recordsRoot(root), '.layout');
}

/**
 * Makes sure every run of a runs root (or an archive) keeps its records outside its directory.
 * Returns the ids moved now (for the caller to say so); costs one read once the root is marked.
 */
export function ensureLayout(root: string): string[] {
  // No root yet, or not a directory: nothing to move (the command's own check says what is wrong).
  if (kind(root) !== 'dir') return [];
  if (readText(layoutMark(root))?.trim() === String(LAYOUT)) return [];
  const names = readdirSync(root);
  const moved = names.filter((id) => isRunId(id) && moveRunRecords(root, id));
  mkdirSync(recordsRoot(root), { recursive: true, mode: 0o700 });
  writeFileAtomic(layoutMark(root), `${LAYOUT}\n`);
  return moved;
}
