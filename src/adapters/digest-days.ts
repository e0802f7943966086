import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { rootPaths } from '../core/run/paths.js';

// The days whose digest was queued, per target: markers beside the outbox's deliveries (dot files,
// never taken for one), so that "once a day" holds whatever passes run at once.

const dir = (root: string) => rootPaths(root).notify;

/**
 * A digest's day claimed for its target: an empty `.day-<key>` beside the deliveries, made once
 * (O_EXCL), before the delivery is queued and kept after it is tidied away, so that passes at once
 * (or a gathering that outlasts midnight) never queue one day twice. False when it was claimed.
 */
export function claimDay(root: string, key: string): boolean {
  mkdirSync(dir(root), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(join(dir(root), `.day-${key}`), 'wx', 0o600));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export function dayClaimed(root: string, key: string): boolean {
  return existsSync(join(dir(root), `.day-${key}`));
}

/** A claim whose delivery could not be made: the next pass claims the day again. */
export function unclaimDay(root: string, key: string): void {
  rmSync(join(dir(root), `.day-${key}`), { force: true });
}

/** The keys of the days claimed; empty when there is no outbox. */
export function claimedDays(root: string): string[] {
  try {
    return readdirSync(dir(root)).flatMap((n) => (n.startsWith('.day-') ? [n.slice('.day-'.length)] : []));
  } catch {
    return [];
  }
}
