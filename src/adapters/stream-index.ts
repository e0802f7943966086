import { closeSync, fstatSync, openSync } from 'node:fs';

import {
  copyStream,
  feedLongLine,
  judgeIndex,
  reviveDatesIn,
  STREAM_SHAPE,
  worthSaving,
  type StreamIndex,
} from '../core/agent/stream-index.js';
import { feedLine, newStream, READ_TYPES, type SessionLog } from '../core/agent/stream.js';
import { hashBytes } from '../core/hash.js';
import type { RunPaths } from '../core/run/paths.js';
import { readHead, writeFileAtomic } from './files.js';
import { readAt, readLines, type Line } from './lines.js';

// The stream index: output.log's sessions as the reducer folded them, with the byte offset they
// cover and what identifies the log they came from. A reader folds in only the bytes after that
// offset, so reading a run costs what is new, never the whole log. output.log stays the truth:
// the index is rebuilt from it whenever it is missing, corrupt, or from another or a shrunk log.

/** A night's index is kilobytes (a few per session). */
const INDEX_MAX_BYTES = 64 * 1024 * 1024;

/**
 * How much of the log's start identifies it (with its device and inode): its first line, the
 * first session's marker with its time in ms and conversation id (about 140 bytes). Hashed by
 * every reader of every live run, cold, in plain JS: 256 bytes, not the 1 or 4 KB earlier
 * indexes keep (theirs is still checked as kept, then stored shorter).
 */
const PRINT_BYTES = 256;

export interface StreamView {
  sessions: SessionLog[];
  /** Byte offset of each session's first line. */
  starts: number[];
  /** The log's size when read. */
  size: number;
}

// The log's first bytes, to tell a replaced log from a grown one.
const printOf = (fd: number, length: number) => hashBytes(readAt(fd, 0, length));

function loadIndex(paths: RunPaths, fd: number, dev: number, ino: number, size: number): StreamIndex | null {
  let stored: unknown;
  try {
    // Bounded: an index larger than this is not one overnight wrote, and is rebuilt from the log.
    const text = readHead(paths.streamIndex, INDEX_MAX_BYTES + 1);
    if (text !== null && text.length > INDEX_MAX_BYTES) return null;
    stored = JSON.parse(text ?? 'null');
  } catch {
    return null; // torn or corrupt: rebuilt
  }
  const verdict = judgeIndex(stored, { dev, ino, size }, (length) => printOf(fd, length));
  if (verdict !== 'use') return null;
  const idx = stored as StreamIndex;
  reviveDatesIn(idx.state);
  return idx;
}

function freshIndex(dev: number, ino: number): StreamIndex {
  return {
    shape: STREAM_SHAPE,
    dev,
    ino,
    printLen: 0,
    print: hashBytes(new Uint8Array(0)),
    offset: 0,
    long: null,
    starts: [],
    state: newStream(),
  };
}

const TYPE_KEY = Buffer.from('"type":"');
const READ = READ_TYPES.map((t) => Buffer.from(`${t}"`));

/**
 * Whether feedLine may do anything with a line, from its bytes: a line of JSON names one of the
 * types it reads (most of a busy log is assistant text and tool results it skips, and decoding
 * them cost a pass more than anything else). Every other line is decoded as before.
 */
function mayMatter(line: Buffer): boolean {
  if (line[0] !== 0x7b) return true;
  // From one byte on: `"type":"` may overlap itself (`"type":"type":"result"`).
  for (let at = line.indexOf(TYPE_KEY); at >= 0; at = line.indexOf(TYPE_KEY, at + 1)) {
    const from = at + TYPE_KEY.length;
    for (const t of READ)
      if (from + t.length <= line.length && line.compare(t, 0, t.length, from, from + t.length) === 0)
        return true;
  }
  return false;
}

/** Folds one line, whole or over the cap, noting where a new session starts. */
function fold(idx: StreamIndex, line: Line): void {
  const before = idx.state.sessions.length;
  if (line.tail === undefined) feedLine(idx.state, line.text);
  else feedLongLine(idx.state, line.text, line.tail);
  if (idx.state.sessions.length > before) idx.starts.push(line.at);
}

/**
 * Every session of the run's output.log, read through the index: only the bytes after the
 * index's offset are read. The index is written back when worthSaving says so (unless
 * `save` is false: a dry run changes nothing); a write that fails (a full disk) is ignored: the
 * next reader folds the same bytes again.
 */
export function readStreamView(paths: RunPaths, save = true): StreamView {
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
    const torn = readLines(fd, idx, st.size, (line) => fold(idx, line), mayMatter);
    // An earlier index's longer print, checked as it was kept, is kept shorter from now on.
    const longer = idx.printLen > PRINT_BYTES;
    if ((idx.printLen < PRINT_BYTES && idx.offset > idx.printLen) || longer) {
      idx.printLen = Math.min(PRINT_BYTES, idx.offset);
      idx.print = printOf(fd, idx.printLen);
    }
    if (save && (longer || worthSaving(!loaded, idx.offset - from))) saveIndex(paths, idx);
    // A torn last line (an agent that died mid-write, or one still writing) counts as the
    // log stands now, without being stored: it may yet be completed.
    const last = idx.long
      ? { at: idx.long.start, end: st.size, text: idx.long.head, tail: idx.long.tail }
      : torn;
    if (!last) return { sessions: idx.state.sessions, starts: idx.starts, size: st.size };
    const view = { ...idx, state: copyStream(idx.state), starts: [...idx.starts] };
    fold(view, last);
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
