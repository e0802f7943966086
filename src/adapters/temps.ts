import {
  closeSync,
  lstatSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  utimesSync,
  type Dirent,
} from 'node:fs';
import { join } from 'node:path';

// Temp files of writers killed mid-write (a pass, the wrapper) are never renamed into place: the
// next pass sweeps them, by overnight's own name patterns only, once they are old enough that no
// writer can still be at work on them, in overnight's own directories only.

/** The names overnight's writers give their temp files. */
const OWN = [
  // writeFileAtomic: `.<name>.<pid>.<n>.tmp`
  /^\..+\.\d+\.\d+\.tmp$/,
  // the wrapper's records: `<name>.tmp.<pid>`
  /^[^/]+\.tmp\.\d+$/,
  // the outbox: `.new-<pid>-<n>.tmp`
  /^\.new-\d+-\d+\.tmp$/,
];

/** Older than this, a temp file's writer is gone. */
export const TEMP_MAX_AGE_MS = 60_000;

export function isOwnTempName(name: string): boolean {
  // Every pattern has `.tmp`: a runs root's thousands of run names are passed over at once.
  return name.includes('.tmp') && OWN.some((re) => re.test(name));
}

/**
 * Removes the regular files directly in `dir` (never below, never a link's target) whose names are
 * overnight's temp names and that were last written more than a minute before `now`. The names
 * removed; a directory that is missing or unreadable is nothing to sweep.
 */
export function sweepTemps(dir: string, now: Date, listed?: readonly string[]): string[] {
  let names: readonly string[];
  try {
    names = listed ?? readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!isOwnTempName(name)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile() || now.getTime() - st.mtimeMs <= TEMP_MAX_AGE_MS) continue;
      unlinkSync(path);
      removed.push(name);
    } catch {
      // gone meanwhile, or not ours to remove: left
    }
  }
  return removed;
}

/**
 * How often overnight's directories are listed for temps: the runs root and its dot-directories
 * hold an entry per run (thousands, after a year), and a listing of each live run's records costs
 * a steady pass as much as the rest of reading that run's records. A temp left by a killed
 * writer is swept within this, rather than by the very next pass: nothing reads one meanwhile.
 */
const ROOT_SWEEP_EVERY_MS = 3_600_000;

/**
 * Sweeps the runs root and its dot-directories (overnight's own, never a run's), listing the
 * root once, and then `more` (the live runs' records), when the last such sweep (`stamp`'s mtime)
 * is an hour old or more.
 */
export function sweepRoot(root: string, now: Date, stamp: string, more: () => void = () => {}): void {
  const last = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
  // A clock set back makes the last sweep look to come: it is due then too.
  if (last !== undefined && now.getTime() - last < ROOT_SWEEP_EVERY_MS && last <= now.getTime()) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return; // no root: nothing to sweep
  }
  sweepTemps(
    root,
    now,
    entries.map((e) => e.name),
  );
  for (const e of entries) if (e.name.startsWith('.') && e.isDirectory()) sweepTemps(join(root, e.name), now);
  more();
  touch(stamp, now);
}

/** The stamp's mtime set to `now`: an empty file, made once (best effort: the sweep is done again). */
function touch(path: string, now: Date): void {
  try {
    utimesSync(path, now, now);
  } catch {
    try {
      closeSync(openSync(path, 'a', 0o600));
      utimesSync(path, now, now);
    } catch {
      // no stamp: the next pass sweeps again
    }
  }
}
