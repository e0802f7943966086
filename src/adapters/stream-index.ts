import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

import {
  copyStream,
  feedLongLine,
  judgeIndex,
  LINE_CAP,
  LONG_HEAD,
  LONG_TAIL,
  reviveDates,
  STREAM_SHAPE,
  type StreamIndex,
} from '../core/agent/stream-index.js';
import { feedLine, newStream, type SessionLog } from '../core/agent/stream.js';
import type { RunPaths } from '../core/run/paths.js';
import { readText, writeFileAtomic } from './files.js';

// The stream index: output.log's sessions as the reducer folded them, with the byte offset they
// cover and what identifies the log they came from. A reader folds in only the bytes after that
// offset, so reading a run costs what is new, never the whole log. output.log stays the truth:
// the index is rebuilt from it whenever it is missing, corrupt, or from another or a shrunk log.

/** Bytes read at a time: the most a reader holds of the log at once (with one line under the cap). */
const CHUNK = 1024 * 1024;
/** How much of the log's start identifies it (with its device and inode). */
const PRINT_BYTES = 4096;

export interface StreamView {
  sessions: SessionLog[];
  /** Byte offset of each session's first line. */
  starts: number[];
  /** The log's size when read. */
  size: number;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

const hash = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');
const printOf = (fd: number, length: number) => hash(readAt(fd, 0, length));

function loadIndex(paths: RunPaths, fd: number, dev: number, ino: number, size: number): StreamIndex | null {
  let stored: unknown;
  try {
    stored = JSON.parse(readText(paths.streamIndex) ?? 'null', reviveDates);
  } catch {
    return null; // torn or corrupt: rebuilt
  }
  const verdict = judgeIndex(stored, { dev, ino, size }, (length) => printOf(fd, length));
  return verdict === 'use' ? (stored as StreamIndex) : null;
}

function freshIndex(dev: number, ino: number): StreamIndex {
  return {
    shape: STREAM_SHAPE,
    dev,
    ino,
    printLen: 0,
    print: hash(Buffer.alloc(0)),
    offset: 0,
    long: null,
    starts: [],
    state: newStream(),
  };
}

/** Folds one whole line at `at`, noting where a new session starts. */
function fold(idx: StreamIndex, at: number, feed: () => void): void {
  const before = idx.state.sessions.length;
  feed();
  if (idx.state.sessions.length > before) idx.starts.push(at);
}

const tailOf = (text: string) => (text.length > LONG_TAIL ? text.slice(-LONG_TAIL) : text);

/**
 * Reads the log from the index's offset to `size`, chunk by chunk. Returns the incomplete last
 * line (under the cap) that is not folded into the stored state.
 */
function extend(idx: StreamIndex, fd: number, size: number): Buffer | null {
  let carry: Buffer | null = null;
  let carryAt = idx.offset;
  let pos = idx.offset;
  while (pos < size) {
    const chunk = readAt(fd, pos, Math.min(CHUNK, size - pos));
    if (chunk.length === 0) break;
    let from = 0;
    if (idx.long) {
      const nl = chunk.indexOf(0x0a);
      const part = chunk.subarray(0, nl < 0 ? chunk.length : nl).toString('utf8');
      idx.long.tail = tailOf(idx.long.tail + part);
      if (nl < 0) {
        pos += chunk.length;
        idx.offset = pos;
        continue;
      }
      const { start, head, tail } = idx.long;
      fold(idx, start, () => feedLongLine(idx.state, head, tail));
      idx.long = null;
      from = nl + 1;
      carryAt = pos + from;
    }
    const buf: Buffer = carry ? Buffer.concat([carry, chunk.subarray(from)]) : chunk.subarray(from);
    const base = carry ? carryAt : pos + from;
    let lineStart = 0;
    for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, lineStart)) {
      const at = base + lineStart;
      const line = buf.subarray(lineStart, nl);
      if (line.length > LINE_CAP) {
        const head = line.subarray(0, LONG_HEAD).toString('utf8');
        const tail = line.subarray(line.length - LONG_TAIL).toString('utf8');
        fold(idx, at, () => feedLongLine(idx.state, head, tail));
      } else {
        fold(idx, at, () => feedLine(idx.state, line.toString('utf8')));
      }
      lineStart = nl + 1;
    }
    idx.offset = base + lineStart;
    pos += chunk.length;
    const rest = buf.subarray(lineStart);
    if (rest.length > LINE_CAP) {
      // Never held whole: from here on only its head and its last bytes are kept.
      const tail = rest.subarray(Math.max(0, rest.length - LONG_TAIL)).toString('utf8');
      idx.long = { start: idx.offset, head: rest.subarray(0, LONG_HEAD).toString('utf8'), tail };
      idx.offset = pos;
      carry = null;
    } else {
      carry = rest.length > 0 ? Buffer.from(rest) : null;
      carryAt = idx.offset;
    }
  }
  return carry;
}

/**
 * Every session of the run's output.log, read through the index: only the bytes after the
 * index's offset are read. The index is written back when it moved on; a write that fails (a
 * full disk) is ignored: the next reader folds the same bytes again.
 */
export function readStreamView(paths: RunPaths): StreamView {
  let fd: number;
  try {
    fd = openSync(paths.outputLog, 'r');
  } catch {
    return { sessions: [], starts: [], size: 0 };
  }
  try {
    const st = fstatSync(fd);
    const loaded = loadIndex(paths, fd, st.dev, st.ino, st.size);
    const idx = loaded ?? freshIndex(st.dev, st.ino);
    const from = idx.offset;
    const carry = extend(idx, fd, st.size);
    if (idx.printLen < PRINT_BYTES && idx.offset > idx.printLen) {
      idx.printLen = Math.min(PRINT_BYTES, idx.offset);
      idx.print = printOf(fd, idx.printLen);
    }
    if (!loaded || idx.offset !== from) saveIndex(paths, idx);
    // A torn last line (an agent that died mid-write, or one still writing) counts as the
    // log stands now, without being stored: it may yet be completed.
    if (!carry && !idx.long) return { sessions: idx.state.sessions, starts: idx.starts, size: st.size };
    const view: StreamIndex = { ...idx, state: copyStream(idx.state), starts: [...idx.starts] };
    if (idx.long) {
      const { start, head, tail } = idx.long;
      fold(view, start, () => feedLongLine(view.state, head, tail));
    } else if (carry) {
      fold(view, idx.offset, () => feedLine(view.state, carry.toString('utf8')));
    }
    return { sessions: view.state.sessions, starts: view.starts, size: st.size };
  } finally {
    closeSync(fd);
  }
}

function saveIndex(paths: RunPaths, idx: StreamIndex): void {
  try {
    // Derived and rebuilt when lost: no fsync.
    writeFileAtomic(paths.streamIndex, JSON.stringify(idx), 0o600, { durable: false });
  } catch {
    // a full disk, or a run directory being removed: the next reader folds these bytes again
  }
}
