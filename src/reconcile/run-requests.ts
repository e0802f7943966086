import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { isRunId } from '../core/run/naming.js';

// Runs that asked for a pass (their agent has just ended) while another pass held the lock: the
// holder serves them before the rest of its round, so a crash is not resumed only after every
// other run was looked at. A request is an empty file named for its run.

/** Leaves the request; best effort (a full disk): the holder's next round serves it anyway. */
export function requestRun(dir: string, id: string): void {
  if (!isRunId(id)) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, id), '');
  } catch {
    // the pass request marker still brings another round
  }
}

/**
 * Moves the runs requested since the last look to the front of what is left of the round, and
 * takes their requests. A run already served this round is left to the next round (the marker
 * brings one); a request for no live run is dropped.
 */
export function servedFirst(dir: string, queue: string[], live: readonly string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const at = queue.indexOf(name);
    if (at < 0 && live.includes(name)) continue;
    rmSync(join(dir, name), { force: true });
    if (at < 0) continue;
    queue.splice(at, 1);
    queue.unshift(name);
  }
}
