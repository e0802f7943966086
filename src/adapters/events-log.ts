import { closeSync, openSync, readSync, statSync } from 'node:fs';

import { readHead, writeFileAtomic } from './files.js';

// The new part of a run's events.jsonl, by byte offset: a pass reads what was added since it last
// looked, never the whole log.

export interface NewLines {
  /** Whole lines (a torn last line waits for its newline), each with its byte offset. */
  lines: { offset: number; text: string }[];
  /** Where the next read starts. */
  end: number;
}

/** Lines after `from`, at most `maxBytes` of them; a longer line than that is skipped whole. */
export function readLinesFrom(path: string, from: number, maxBytes: number): NewLines {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { lines: [], end: from };
  }
  // A log that shrank was replaced: what it held before is not news.
  if (size <= from) return { lines: [], end: Math.min(from, size) };
  const length = Math.min(size - from, maxBytes);
  const buf = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buf, 0, length, from);
  } finally {
    closeSync(fd);
  }
  const last = buf.lastIndexOf(0x0a);
  if (last < 0) return { lines: [], end: length === maxBytes ? from + length : from };
  const lines: NewLines['lines'] = [];
  let start = 0;
  while (start <= last) {
    const nl = buf.indexOf(0x0a, start);
    lines.push({ offset: from + start, text: buf.toString('utf8', start, nl) });
    start = nl + 1;
  }
  return { lines, end: from + last + 1 };
}

/** Where the last scan of a run's events log ended; 0 before the first. */
export function readOffset(path: string): number {
  try {
    const n = Number((readHead(path, 64) ?? '0').trim());
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  } catch {
    return 0;
  }
}

export function writeOffset(path: string, offset: number): void {
  writeFileAtomic(path, `${offset}\n`);
}
