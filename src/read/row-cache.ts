import { closeSync, constants, fstatSync, openSync, readSync, rmSync, type Stats } from 'node:fs';

import { exists, writeFileAtomic } from '../adapters/files.js';
import { myUid } from '../adapters/owner.js';
import { isRunId } from '../core/run/naming.js';
import { recordsDir, recordsRoot } from '../core/run/paths.js';
import { RUN_STATES, type RunState } from '../core/run/types.js';
import { printedRow, rowKeysOfText } from '../core/status/json-row.js';
import { hasRawControl, jsonListItem, spanText, type ByteSpan } from '../core/text.js';
import { parseFinalDoc, ROW_FORM } from './final-row.js';
import type { StatusRow } from './rows.js';

// Finished runs' rows as status last made them, one file per runs root (in its records, where the
// agent cannot write, and only the person can: checked), so that `status --json` over a thousand
// finished runs reads one file rather than a thousand summaries, and prints each row as the text
// it was printed as (a row made and printed again a thousand times is most of what it costs).
// An entry is used only while its run's records directory is the same (inode, mtime, ctime):
// overnight replaces a summary or sentinel there whole (archive, continue and stop included),
// which changes that directory's mtime, and a run removed takes its directory with it. What can
// change in the run's own directory (findings, questions, the owner checks) is read live as
// before. A row status looks into (to filter, to add to, to show in the table) is made from its
// text and checked as its summary is. A text printed as it is was checked when it was made; the
// file is used only when it holds no control raw (nothing printed from it reaches a terminal as
// one), its first line names this format and this version's row form, its index is one and this
// root's, and every text is framed as a list's item where the index says. Anything else is no
// cache, and the next status that makes a row writes the file anew.

/** A row is a few kilobytes; a file larger than this was not written by overnight. */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** A directory changed this recently may change again within the same timestamp tick: not cached. */
const SETTLED_MS = 2_000;
/** Below this many runs the summaries are read directly: reading the whole cache costs more. */
export const CACHE_MIN_RUNS = 32;

const FILE = '.status-rows';
/** The earlier cache (rows as JSON objects): removed when this one is written. */
const OLD_FILE = '.status-rows.json';
/** The first line: this format (4: rows printed with openQuestions), for rows of this form (ROW_FORM). */
const HEAD = `overnight status rows 4 ${ROW_FORM}`;
const STATES = new Set<string>(RUN_STATES);
/** What follows each text in the file: what follows an item of a list but the last. */
const SEPARATOR = Buffer.from(',\n');

/** A finished run's cached row: its printed text, and what status needs without making it. */
export interface CachedRow {
  /**
   * The row as `status --json` prints it (jsonListItem's text, in UTF-8: a piece of the file), not
   * parsed until the row is needed: printed as it is read.
   */
  text: ByteSpan;
  /** The counts' stamp (countsStamp) of what the row counted. */
  stamp: string;
  state: RunState;
  /** The follow-up the row names, whose presence status checks. */
  continuedBy: string | null;
  /** A repository run: status adds its branch's commits, so its row is always made. */
  repo: boolean;
}

export interface RowCache {
  /** The run's cached row, when its records directory is as it was when the row was cached. */
  get(id: string, records: Stats): CachedRow | null;
  /** A row just made, with the stamp of its counts: cached when its directory has settled. */
  put(id: string, records: Stats, row: StatusRow, stamp: string): void;
  /** Writes the cache back when it changed; never fails the command. */
  save(): void;
}

/**
 * An entry of the file's index, as read (checked when used): id, inode, mtime and ctime of the
 * records directory, stamp, state, follow-up or null, repository 0 or 1, the text's length.
 */
type IndexRow = unknown[];

interface Entry {
  index: IndexRow;
  text: ByteSpan;
  /** Its run was looked at by this status (kept on save while its records are). */
  used: boolean;
}

/** The row a cached text is, checked as a summary is; null when it is not one. */
export function rowOfText(text: ByteSpan, id: string): StatusRow | null {
  let doc: unknown;
  try {
    doc = JSON.parse(rowKeysOfText(spanText(text)));
  } catch {
    return null;
  }
  const got = parseFinalDoc(doc, id);
  return 'row' in got ? got.row : null;
}

/**
 * The runs root's row cache (empty when it is missing, too large, not ours or not for this root).
 * The file: a line naming the format, a line of JSON (the root and the index of entries), then
 * the entries' texts, each followed by a comma and a newline.
 */
export function loadRowCache(root: string): RowCache {
  const path = `${recordsRoot(root)}/${FILE}`;
  const file = readOwn(path);
  const entries = readIndex(file, root);
  let changed = false;
  return {
    get(id, records) {
      const e = entries.get(id);
      if (!e) return null;
      e.used = true;
      const x = e.index;
      if (x[1] !== records.ino || x[2] !== records.mtimeMs || x[3] !== records.ctimeMs) return null;
      const stamp = x[4];
      const state = x[5];
      const next = x[6];
      const repo = x[7];
      if (typeof stamp !== 'string' || typeof state !== 'string' || !STATES.has(state)) return null;
      if ((next !== null && (typeof next !== 'string' || !isRunId(next))) || (repo !== 0 && repo !== 1))
        return null;
      return { text: e.text, stamp, state: state as RunState, continuedBy: next, repo: repo === 1 };
    },
    put(id, records, row, stamp) {
      // Entries added or removed within the same timestamp tick would leave the mtime as it was.
      if (records.mtimeMs >= Date.now() - SETTLED_MS) {
        if (entries.delete(id)) changed = true;
        return;
      }
      const text = Buffer.from(jsonListItem(printedRow(row)));
      const next = row.continuedBy ?? null;
      const index = [
        id,
        records.ino,
        records.mtimeMs,
        records.ctimeMs,
        stamp,
        row.state,
        next,
        row.repo ? 1 : 0,
      ];
      entries.set(id, {
        index: [...index, text.length],
        text: { bytes: text, start: 0, end: text.length },
        used: true,
      });
      changed = true;
    },
    save() {
      if (!changed) return;
      // Runs not looked at this time stay only while their records do (a removed run's go).
      // In the order status lists runs, each text followed by the comma and newline that follow it
      // in a list: runs printed one after the other are one piece of the file (see jsonList).
      const kept = [...entries]
        .filter(([id, e]) => isRunId(id) && (e.used || exists(recordsDir(root, id))))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const index = JSON.stringify({ root, rows: kept.map(([, e]) => e.index) });
      const parts: Uint8Array[] = [Buffer.from(`${HEAD}\n${index}\n`)];
      for (const [, { text: t }] of kept) parts.push(t.bytes.subarray(t.start, t.end), SEPARATOR);
      try {
        writeFileAtomic(path, Buffer.concat(parts), 0o600, { durable: false });
        rmSync(`${recordsRoot(root)}/${OLD_FILE}`, { force: true });
      } catch {
        // a cache: the next status reads the summaries again
      }
    },
  };
}

/**
 * The file, when it is one (not a link), only the person can have written it, and it holds no
 * control raw (JSON escapes every one, and the texts were written escaped for a terminal too):
 * null otherwise.
 */
function readOwn(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    const me = myUid();
    if (!st.isFile() || (me !== null && st.uid !== me) || (st.mode & 0o022) !== 0) return null;
    if (st.size > CACHE_MAX_BYTES) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    for (let n = 1; got < buf.length && n > 0; got += n) n = readSync(fd, buf, got, buf.length - got, got);
    const bytes = buf.subarray(0, got);
    return hasRawControl(bytes) ? null : bytes;
  } catch {
    return null;
  } finally {
    try {
      closeSync(fd);
    } catch {
      // read already, or not at all
    }
  }
}

/**
 * The entries, from the index: each one's text follows the one before and its comma and newline,
 * and the last ends the file. An index that is not one, or not for this root, makes the whole
 * file no cache.
 */
function readIndex(bytes: Buffer | null, root: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const first = bytes ? bytes.indexOf(0x0a) : -1;
  const second = bytes && first >= 0 ? bytes.indexOf(0x0a, first + 1) : -1;
  if (!bytes || second < 0 || bytes.toString('latin1', 0, first) !== HEAD) return entries;
  let index: unknown;
  try {
    index = JSON.parse(bytes.toString('utf8', first + 1, second));
  } catch {
    return entries;
  }
  const rows = (index as { rows?: unknown })?.rows;
  if ((index as { root?: unknown })?.root !== root || !Array.isArray(rows)) return entries;
  let at = second + 1;
  // Indexed, no iterator: a thousand entries, read before the code is optimized.
  for (let i = 0; i < rows.length; i++) {
    const x: unknown = rows[i];
    if (!Array.isArray(x) || x.length !== 9 || typeof x[0] !== 'string') return new Map();
    const length: unknown = x[8];
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return new Map();
    // Each text a list's item (`  {` to `}`), then a comma and a newline.
    const framed = bytes[at] === 0x20 && bytes[at + 1] === 0x20 && bytes[at + 2] === 0x7b;
    if (!framed || bytes[at + length - 1] !== 0x7d) return new Map();
    if (bytes[at + length] !== 0x2c || bytes[at + length + 1] !== 0x0a) return new Map();
    entries.set(x[0], { index: x, text: { bytes, start: at, end: at + length }, used: false });
    at += length + SEPARATOR.length;
  }
  return at === bytes.length ? entries : new Map();
}
