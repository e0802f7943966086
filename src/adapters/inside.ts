import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { sep } from 'node:path';

// Files of a run that the agent writes (REPORT.md, questions.md, findings/) are read only when
// they are regular files inside the run's directory: a link the agent made to a file outside
// (`REPORT.md` → `~/.ssh/id_ed25519`) is never followed, by the digest, continue or notifications.
// Real paths come from the system's realpath(3): Node's own walks every component with lstat.
const realpath = realpathSync.native;

/** Whether `path` is a regular file (not a link) whose real path lies inside `dir`. */
export function regularInside(dir: string, path: string): boolean {
  try {
    if (!lstatSync(path).isFile()) return false;
    const root = realpath(dir);
    const at = realpath(path);
    return at.startsWith(root + sep);
  } catch {
    return false;
  }
}

/** Whether `path` is a directory (not a link) whose real path lies inside `dir`. */
export function directoryInside(dir: string, path: string): boolean {
  try {
    if (!lstatSync(path).isDirectory()) return false;
    const root = realpath(dir);
    return realpath(path).startsWith(root + sep);
  } catch {
    return false;
  }
}

/**
 * At most `max` bytes from the start of `path`, when it is a regular file inside `dir`; null
 * otherwise (missing, a link, a directory, outside). Always bounded: the agent writes these files,
 * and may make one as large as the disk.
 */
export function readInside(dir: string, path: string, max: number): { text: string; whole: boolean } | null {
  if (!regularInside(dir, path)) return null;
  let fd: number;
  try {
    // O_NOFOLLOW: a link swapped in since the check is refused, not followed.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const size = Math.min(st.size, max);
    const buf = Buffer.alloc(size);
    let n = 0;
    while (n < size) {
      const got = readSync(fd, buf, n, size - n, n);
      if (got === 0) break;
      n += got;
    }
    return { text: buf.subarray(0, n).toString('utf8'), whole: n >= st.size };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The text of at most `max` bytes of `path` when it is a regular file inside `dir`, or null. */
export function readTextInside(dir: string, path: string, max: number): string | null {
  return readInside(dir, path, max)?.text ?? null;
}
