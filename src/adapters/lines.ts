import { readSync } from 'node:fs';

import { LINE_CAP, LONG_HEAD, LONG_TAIL } from '../core/agent/stream-index.js';

// Lines of a log read in chunks, forwards from an offset or backwards from the end, with bounded
// memory: a line over LINE_CAP (a 100 MB tool result, a sparse file without a newline) is never
// held whole; its head and tail stand for it.

/** Bytes read at a time. */
export const CHUNK = 1024 * 1024;

export interface Line {
  /** Byte offset of the line's first byte, and of the byte after its newline. */
  at: number;
  end: number;
  /** The line without its newline; for a line over the cap, its first LONG_HEAD bytes. */
  text: string;
  /** A line over the cap: its last LONG_TAIL bytes (its middle was never held). */
  tail?: string;
}

/** Where a forward reader stands: a plain value, so it can be stored and continued later. */
export interface LineCursor {
  offset: number;
  /** A line over the cap being read: where it started, its head, its last bytes so far. */
  long: { start: number; head: string; tail: string } | null;
}

export function readAt(fd: number, position: number, length: number, into?: Buffer): Buffer {
  const buf = into && into.length >= length ? into : Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === buf.length ? buf : buf.subarray(0, got);
}

const tailOf = (text: string) => (text.length > LONG_TAIL ? text.slice(-LONG_TAIL) : text);

/**
 * The text of `bytes` as far as its last LONG_TAIL characters go: only the last 4 × LONG_TAIL
 * bytes are decoded (a character is at most 4 bytes, and a sequence cut at their start spoils at
 * most its first 3 characters), so a gigabyte-long line costs its reading, not its decoding.
 */
function lastText(bytes: Buffer): string {
  const keep = 4 * LONG_TAIL;
  return (bytes.length > keep ? bytes.subarray(-keep) : bytes).toString('utf8');
}

/**
 * Reads whole lines from the cursor up to `size`, advancing the cursor past each. Returns the
 * incomplete last line (under the cap) without consuming it: it may yet be completed. A whole line
 * under the cap whose bytes `keep` refuses is passed over without being decoded.
 */
export function readLines(
  fd: number,
  cursor: LineCursor,
  size: number,
  onLine: (l: Line) => void,
  keep?: (bytes: Buffer) => boolean,
): Line | null {
  let carry: Buffer | null = null;
  let carryAt = cursor.offset;
  let pos = cursor.offset;
  // One buffer for every chunk (nothing is kept of one past its turn: lines are decoded or copied).
  const scratch = Buffer.allocUnsafe(Math.max(0, Math.min(CHUNK, size - pos)));
  while (pos < size) {
    const chunk = readAt(fd, pos, Math.min(CHUNK, size - pos), scratch);
    if (chunk.length === 0) break;
    let from = 0;
    if (cursor.long) {
      const nl = chunk.indexOf(0x0a);
      const long = cursor.long;
      long.tail = tailOf(long.tail + lastText(chunk.subarray(0, nl < 0 ? chunk.length : nl)));
      pos += chunk.length;
      if (nl < 0) {
        cursor.offset = pos;
        continue;
      }
      const end = pos - chunk.length + nl + 1;
      cursor.long = null;
      cursor.offset = end;
      onLine({ at: long.start, end, text: long.head, tail: long.tail });
      from = nl + 1;
      pos -= chunk.length;
    }
    const emit = (at: number, line: Buffer) => {
      if (line.length > LINE_CAP) {
        const head = line.subarray(0, LONG_HEAD).toString('utf8');
        onLine({ at, end: cursor.offset, text: head, tail: line.subarray(-LONG_TAIL).toString('utf8') });
      } else if (!keep || keep(line)) {
        onLine({ at, end: cursor.offset, text: line.toString('utf8') });
      }
    };
    const first = carry ? chunk.indexOf(0x0a, from) : -1;
    if (carry && first >= 0) {
      // The carried line ends in this chunk: only that line is joined, not the whole chunk.
      cursor.offset = pos + first + 1;
      emit(carryAt, Buffer.concat([carry, chunk.subarray(from, first)]));
      carry = null;
      from = first + 1;
    }
    const base = carry ? carryAt : pos + from;
    const buf: Buffer = carry ? Buffer.concat([carry, chunk.subarray(from)]) : chunk.subarray(from);
    let start = 0;
    for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, start)) {
      cursor.offset = base + nl + 1;
      emit(base + start, buf.subarray(start, nl));
      start = nl + 1;
    }
    pos += chunk.length;
    const rest = buf.subarray(start);
    carry = null;
    if (rest.length > LINE_CAP) {
      // Never held whole: from here on only its head and its last bytes are kept.
      const head = rest.subarray(0, LONG_HEAD).toString('utf8');
      cursor.long = { start: base + start, head, tail: rest.subarray(-LONG_TAIL).toString('utf8') };
      cursor.offset = pos;
    } else if (rest.length > 0) {
      carry = Buffer.from(rest);
      carryAt = base + start;
    }
  }
  return carry ? { at: carryAt, end: carryAt + carry.length, text: carry.toString('utf8') } : null;
}

/** The last newline in [from, before), or -1: scanned backwards a chunk at a time, one chunk kept. */
class NewlineScanner {
  private chunk: Buffer = Buffer.alloc(0);
  private chunkAt = 0;

  constructor(
    private readonly fd: number,
    private readonly from: number,
  ) {}

  before(position: number): number {
    let pos = position;
    while (pos > this.from) {
      if (!(pos > this.chunkAt && pos <= this.chunkAt + this.chunk.length)) {
        const start = Math.max(this.from, pos - CHUNK);
        this.chunk = readAt(this.fd, start, pos - start);
        this.chunkAt = start;
      }
      const i = this.chunk.lastIndexOf(0x0a, pos - this.chunkAt - 1);
      if (i >= 0) return this.chunkAt + i;
      pos = this.chunkAt;
    }
    return -1;
  }

  /** The bytes [at, end) when the chunk in hand holds them (no read for a short line). */
  held(at: number, end: number): Buffer | null {
    return at >= this.chunkAt && end <= this.chunkAt + this.chunk.length
      ? this.chunk.subarray(at - this.chunkAt, end - this.chunkAt)
      : null;
  }
}

/** The line in [at, end), its newline at end - 1; a line over the cap as its head and tail. */
function lineAt(fd: number, at: number, end: number, scanner: NewlineScanner): Line {
  const bytes = end - 1 - at;
  const held = scanner.held(at, end - 1);
  if (held) return { at, end, text: held.toString('utf8') };
  if (bytes <= LINE_CAP) return { at, end, text: readAt(fd, at, bytes).toString('utf8') };
  const head = readAt(fd, at, LONG_HEAD).toString('utf8');
  return { at, end, text: head, tail: readAt(fd, end - 1 - LONG_TAIL, LONG_TAIL).toString('utf8') };
}

/**
 * Whole lines in [from, to), newest first, until `onLine` returns false. Bytes after the last
 * newline are not a line yet and are skipped.
 */
export function readLinesBackward(fd: number, from: number, to: number, onLine: (l: Line) => boolean): void {
  const scanner = new NewlineScanner(fd, from);
  for (let nl = scanner.before(to); nl >= 0;) {
    const previous = scanner.before(nl);
    if (!onLine(lineAt(fd, Math.max(from, previous + 1), nl + 1, scanner))) return;
    nl = previous;
  }
}
