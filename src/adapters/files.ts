import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

import { describeFsError } from '../core/run/runs-root.js';

// Every file the supervisor writes goes through here: temp file, fsync, rename.

let counter = 0;

export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // the temp file is already gone
    }
    throw err;
  }
}

/** Logs grow by whole lines with O_APPEND; readers skip a torn last line. */
export function appendLine(path: string, line: string, mode = 0o600): void {
  appendFileSync(path, line.endsWith('\n') ? line : line + '\n', { mode });
}

export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new Error(code ? describeFsError({ code, path }) : `${path}: ${(err as Error).message}`);
  }
}

export function exists(path: string): boolean {
  return existsSync(path);
}

export function mtime(path: string): Date | null {
  try {
    return statSync(path).mtime;
  } catch {
    return null;
  }
}
