import type { Stats } from 'node:fs';

import { exists, readHead, writeFileAtomic } from '../adapters/files.js';
import { recordsDir, recordsRoot } from '../core/run/paths.js';
import { parseFinalDoc, type FinalRow } from './final-row.js';

// Finished runs' rows as status last read them from their summaries, one file per runs root (in
// its records, where the agent cannot write), so that `status --json` over a thousand finished runs
// reads one file rather than a thousand summaries. An entry is used only while its run's records
// directory is the same (inode, mtime, ctime): overnight replaces a summary or sentinel there
// whole (archive, continue and stop included), which changes that directory's mtime, and a run
// removed takes its directory with it. What can change in the run's own directory (findings,
// questions, the owner checks) is read live as before. Read back as untrusted: bounded, and each
// row checked as its summary is.

/** A row is a few kilobytes; a file larger than this was not written by overnight. */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** A directory changed this recently may change again within the same timestamp tick: not cached. */
const SETTLED_MS = 2_000;
/** Below this many runs the summaries are read directly: parsing the whole cache costs more. */
export const CACHE_MIN_RUNS = 32;

const FILE = '.status-rows.json';
/** 2: the key is [inode, mtime, ctime] as numbers (no number made text a run to compare). */
const VERSION = 2;

type Key = [number, number, number];

interface Entry {
  key: Key;
  row: unknown;
}

export interface RowCache {
  /** The run's cached row, when its records directory is as it was when the row was cached. */
  get(id: string, records: Stats): FinalRow | null;
  /** A row just read from the run's summary, cached when its directory has settled. */
  put(id: string, records: Stats, row: FinalRow): void;
  /** Writes the cache back when it changed; never fails the command. */
  save(): void;
}

const keyOf = (st: Stats): Key => [st.ino, st.mtimeMs, st.ctimeMs];

const sameKey = (k: unknown, st: Stats): boolean =>
  Array.isArray(k) && k.length === 3 && k[0] === st.ino && k[1] === st.mtimeMs && k[2] === st.ctimeMs;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The runs root's row cache (empty when it is missing, too large or not ours). */
export function loadRowCache(root: string): RowCache {
  const path = `${recordsRoot(root)}/${FILE}`;
  const entries = readEntries(path);
  const used = new Set<string>();
  let changed = false;
  return {
    get(id, records) {
      used.add(id);
      const e = Object.hasOwn(entries, id) ? entries[id] : undefined;
      if (!isObject(e) || !sameKey(e.key, records)) return null;
      const got = parseFinalDoc(e.row, id);
      return 'row' in got ? got.row : null;
    },
    put(id, records, row) {
      used.add(id);
      // Entries added or removed within the same timestamp tick would leave the mtime as it was.
      if (records.mtimeMs >= Date.now() - SETTLED_MS) {
        if (Object.hasOwn(entries, id)) changed = delete entries[id];
        return;
      }
      entries[id] = { key: keyOf(records), row } satisfies Entry;
      changed = true;
    },
    save() {
      if (!changed) return;
      // Runs not looked at this time stay only while their records do (a removed run's go).
      const kept: Record<string, unknown> = {};
      for (const [id, e] of Object.entries(entries))
        if (used.has(id) || exists(recordsDir(root, id))) kept[id] = e;
      try {
        writeFileAtomic(path, JSON.stringify({ version: VERSION, entries: kept }), 0o600, { durable: false });
      } catch {
        // a cache: the next status reads the summaries again
      }
    },
  };
}

function readEntries(path: string): Record<string, unknown> {
  let text: string | null;
  try {
    text = readHead(path, CACHE_MAX_BYTES + 1);
  } catch {
    return {};
  }
  if (!text || text.length > CACHE_MAX_BYTES) return {};
  try {
    const doc: unknown = JSON.parse(text);
    if (isObject(doc) && doc.version === VERSION && isObject(doc.entries)) return doc.entries;
  } catch {
    // torn or not ours: rebuilt from the summaries
  }
  return {};
}
