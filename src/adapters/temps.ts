import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
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
  return OWN.some((re) => re.test(name));
}

/**
 * Removes the regular files directly in `dir` (never below, never a link's target) whose names are
 * overnight's temp names and that were last written more than a minute before `now`. The names
 * removed; a directory that is missing or unreadable is nothing to sweep.
 */
export function sweepTemps(dir: string, now: Date): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
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

/** The runs root itself and its dot-directories (overnight's own, never a run's). */
export function rootTempDirs(root: string): string[] {
  const dirs = [root];
  try {
    for (const e of readdirSync(root, { withFileTypes: true }))
      if (e.name.startsWith('.') && e.isDirectory()) dirs.push(join(root, e.name));
  } catch {
    // no root: nothing to sweep
  }
  return dirs;
}
