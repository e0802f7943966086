import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { isRunId } from '../core/run/naming.js';
import { finishedFiles, rootPaths } from '../core/run/paths.js';
import { formatFinished, type FinishedEntry, type FinishedPicker } from '../core/run/run-index.js';
import { appendLine, exists, mtime, writeFileAtomic } from './files.js';
import { readLinesBackward } from './lines.js';
import { listRunIds } from './store.js';

// The runs root's two indexes, so that a pass and the dashboard cost what is live, not what is
// old: `.live/` holds an empty file per run not yet verified finished (what a pass looks at), and
// `.finished.jsonl` a line per run verified finished (what status picks recent runs from). One
// function per change: a run added, finished, removed. Written only under the pass lock; rebuilt
// from a full scan of the runs root when either is missing.

/** Runs a pass must look at, or null when the index is missing (a reader without the lock scans). */
export function liveRunIds(root: string): string[] | null {
  const rp = rootPaths(root);
  try {
    const ids = readdirSync(rp.live).filter(isRunId).sort();
    return exists(rp.finished) ? ids : null;
  } catch {
    return null;
  }
}

/** The live runs, the index rebuilt first if it is missing. Under the pass lock only. */
export function ensureRunIndex(root: string): string[] {
  return liveRunIds(root) ?? rebuildRunIndex(root);
}

/**
 * Both indexes from a full scan: a run with a sentinel and its status summary is finished (at
 * the summary's time), any other is live. Built aside and renamed into place.
 */
export function rebuildRunIndex(root: string): string[] {
  const rp = rootPaths(root);
  const live: string[] = [];
  const finished: FinishedEntry[] = [];
  for (const id of listRunIds(root)) {
    const f = finishedFiles(root, id);
    const at = mtime(f.final);
    const state = exists(f.failed) ? 'failed' : exists(f.done) ? 'done' : null;
    if (at && state) finished.push({ id, finishedAt: at, state });
    else live.push(id);
  }
  finished.sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime());
  const tmp = join(root, `.live.${process.pid}.tmp`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { mode: 0o700 });
  try {
    for (const id of live) closeSync(openSync(join(tmp, id), 'w', 0o600));
    writeFileAtomic(rp.finished, finished.map((e) => formatFinished(e) + '\n').join(''));
    rmSync(rp.live, { recursive: true, force: true });
    renameSync(tmp, rp.live);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return live;
}

/** A run a pass must look at from now on (launch). */
export function markLive(root: string, id: string): void {
  ensureRunIndex(root);
  writeFileAtomic(join(rootPaths(root).live, id), '');
}

/**
 * A run verified finished: into the finished index, then out of the live one. Once only: a run
 * no longer live is in the finished index already (finalized again by `stop` or `continue`).
 */
export function markFinished(root: string, entry: FinishedEntry): void {
  const rp = rootPaths(root);
  if (liveRunIds(root) === null) return; // rebuilt from the summaries by the next pass
  const marker = join(rp.live, entry.id);
  if (!exists(marker)) return;
  appendLine(rp.finished, formatFinished(entry));
  rmSync(marker, { force: true });
}

/** A run gone from the runs root (never launched after all, archived, removed). */
export function markRemoved(root: string, id: string, state: FinishedEntry['state'] | null, at: Date): void {
  const rp = rootPaths(root);
  if (liveRunIds(root) === null) return;
  if (state) appendLine(rp.finished, formatFinished({ id, finishedAt: at, state, removed: true }));
  rmSync(join(rp.live, id), { force: true });
}

/**
 * A finished run back in the runs root (unarchived): in the finished index again, after the line
 * that said it left, so the newest line about it says it is here.
 */
export function markRestored(root: string, entry: FinishedEntry): void {
  if (liveRunIds(root) === null) return; // rebuilt from the summaries by the next pass
  appendLine(rootPaths(root).finished, formatFinished(entry));
}

/** Feeds the finished index to `picker`, newest first, until it has read enough. */
export function readFinished(root: string, picker: FinishedPicker): void {
  let fd: number;
  try {
    fd = openSync(rootPaths(root).finished, 'r');
  } catch {
    return;
  }
  try {
    readLinesBackward(fd, 0, fstatSync(fd).size, (line) => picker.take(line.text));
  } finally {
    closeSync(fd);
  }
}
