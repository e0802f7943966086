import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

import { describeFsError } from '../core/run/runs-root.js';

// Every file the supervisor writes goes through here: temp file, fsync, rename.

let counter = 0;

/**
 * Temp file, fsync, rename: a reader sees the old file or the new one, never half of one. When
 * any step fails (a full disk), the temp file is removed and the old file is left as it was.
 * `durable: false` skips the fsync, for derived files that are rebuilt when lost (an index).
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = 0o600,
  opts: { durable?: boolean } = {},
): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${counter++}.tmp`);
  let fd: number | null = null;
  try {
    fd = openExclusive(tmp, mode);
    writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (opts.durable !== false) fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(tmp, path);
  } catch (err) {
    if (fd !== null) closeQuietly(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already gone
    }
    throw err;
  }
}

/**
 * Creates the temp file, never opening one that exists: a link planted at its name in a directory
 * the agent can write (the run's views) is removed, not written through.
 */
function openExclusive(tmp: string, mode: number): number {
  try {
    return openSync(tmp, 'wx', mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    unlinkSync(tmp);
    return openSync(tmp, 'wx', mode);
  }
}

function writeAll(fd: number, buf: Uint8Array, position: number | null = null): void {
  for (let done = 0; done < buf.length;) {
    done += writeSync(fd, buf, done, buf.length - done, position === null ? null : position + done);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing more to do
  }
}

/**
 * Logs grow by whole lines with O_APPEND; readers skip a torn line. A record always starts on a
 * fresh line: after a writer that died mid-line (an agent killed, a full disk), a newline comes
 * first, so the cut-off line never swallows the record that follows it.
 */
export function appendLine(path: string, line: string, mode = 0o600): void {
  // 'a+': appends, and can read the byte before the end.
  const fd = openSync(path, 'a+', mode);
  try {
    const size = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
    const text = (torn ? '\n' : '') + (line.endsWith('\n') ? line : line + '\n');
    writeAll(fd, Buffer.from(text, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/**
 * Overwrites a file's bytes in place, padded with spaces to the file's size: the fallback for a
 * small record when the disk is too full for a new file (the blocks it owns are reused). False
 * when the file is missing or too small for `data`.
 */
export function overwriteInPlace(path: string, data: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.from(data, 'utf8');
    if (buf.length > size) return false;
    writeAll(fd, Buffer.concat([buf, Buffer.alloc(size - buf.length, 0x20)]), 0);
    return true;
  } catch {
    return false;
  } finally {
    closeQuietly(fd);
  }
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

/**
 * At most the first `maxBytes` of a file, as text; null when it is missing. For files a run's agent
 * can write: a huge one costs `maxBytes`, never the whole file (a cut last character is dropped).
 */
export function readHead(path: string, maxBytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new Error(code ? describeFsError({ code, path }) : `${path}: ${(err as Error).message}`);
  }
  try {
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, fstatSync(fd).size));
    let got = 0;
    for (let n = 1; got < buf.length && n > 0; got += n) n = readSync(fd, buf, got, buf.length - got, got);
    return buf.toString('utf8', 0, got).replace(/\uFFFD$/, '');
  } finally {
    closeQuietly(fd);
  }
}

export function exists(path: string): boolean {
  return existsSync(path);
}

/** Something is at `path`, whatever it is: a dangling link too (which `exists` does not see). */
export function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export function mtime(path: string): Date | null {
  try {
    // A missing file is common here (questions.md): no exception made for it, once per run.
    return statSync(path, { throwIfNoEntry: false })?.mtime ?? null;
  } catch {
    return null;
  }
}
