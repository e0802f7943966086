import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { parseFinal, parseFinalDoc } from '../../src/read/final-row.js';
import { loadRowCache } from '../../src/read/row-cache.js';

// status's cache of finished runs' rows: used only while the run's records directory is as it
// was, never for a directory changed in the last seconds, and read back as untrusted.

const ID = '2026-11-21-2315-survey';
const SUMMARY = { id: ID, state: 'done', reason: 'report written', task: 'Survey', countsStamp: '1:2' };

let root: string;
let records: string;
const cacheFile = () => join(root, '.overnight', '.status-rows.json');
const row = () => {
  const got = parseFinal(JSON.stringify(SUMMARY), ID);
  if (!('row' in got)) throw new Error(got.bad);
  return got.row;
};
/** The records directory as last changed a minute ago. */
const settle = () => {
  const old = new Date(Date.now() - 60_000);
  utimesSync(records, old, old);
  return statSync(records);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'row-cache-'));
  records = join(root, '.overnight', ID);
  mkdirSync(records, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the row cache', () => {
  test('a row put is got back while the records directory is unchanged', () => {
    const st = settle();
    const cache = loadRowCache(root);
    cache.put(ID, st, row());
    cache.save();
    expect(loadRowCache(root).get(ID, statSync(records))).toEqual(row());
  });

  test('a change in the records directory (a summary replaced, a run continued) misses', () => {
    const cache = loadRowCache(root);
    cache.put(ID, settle(), row());
    cache.save();
    writeFileSync(join(records, 'DONE'), 'x');
    expect(loadRowCache(root).get(ID, statSync(records))).toBeNull();
  });

  test('a directory changed in the last seconds is not cached', () => {
    const cache = loadRowCache(root);
    cache.put(ID, statSync(records), row());
    cache.save();
    expect(() => readFileSync(cacheFile())).toThrow();
  });

  test('a removed run is dropped when the cache is next written', () => {
    const other = '2026-11-22-0100-other';
    mkdirSync(join(root, '.overnight', other));
    const first = loadRowCache(root);
    first.put(ID, settle(), row());
    first.save();
    rmSync(records, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, '.overnight', other), old, old);
    const second = loadRowCache(root);
    second.put(other, statSync(join(root, '.overnight', other)), { ...row(), id: other });
    second.save();
    const entries = (JSON.parse(readFileSync(cacheFile(), 'utf8')) as { entries: object }).entries;
    expect(Object.keys(entries)).toEqual([other]);
  });

  test('a tampered or foreign file is no cache, and a bad row is a miss', () => {
    const st = settle();
    const key = [st.ino, st.mtimeMs, st.ctimeMs];
    const file = (entries: unknown, version = 2) => JSON.stringify({ version, entries });
    writeFileSync(cacheFile(), file({ [ID]: { key, row: row() } }));
    expect(loadRowCache(root).get(ID, st)).toEqual(row());
    for (const text of [
      'not json',
      '[]',
      file({}),
      file([]),
      // the earlier format, keyed by text
      file({ [ID]: { key: `${st.ino}:${st.mtimeMs}:${st.ctimeMs}`, row: row() } }, 1),
      file({ [ID]: { key: key.join(':'), row: row() } }),
      file({ [ID]: { key: [st.ino, st.mtimeMs], row: row() } }),
      file({ [ID]: { key: [st.ino, st.mtimeMs + 1, st.ctimeMs], row: row() } }),
      file({ [ID]: { key, row: { ...SUMMARY, restarts: -1 } } }),
      file({ [ID]: { key, row: { ...row(), id: 'someone-else' } } }),
    ]) {
      writeFileSync(cacheFile(), text);
      expect(loadRowCache(root).get(ID, st), text).toBeNull();
    }
  });
});

describe('a summary already in the row form', () => {
  test('reads back as the same row, keys in the same order', () => {
    const first = row();
    const again = parseFinalDoc(JSON.parse(JSON.stringify(first)), ID);
    expect('row' in again && JSON.stringify(again.row)).toBe(JSON.stringify(first));
  });

  test('with a field out of order or unknown is made into the row', () => {
    const first = row();
    const shuffled = { extra: 1, ...first };
    const again = parseFinalDoc(shuffled, ID);
    expect('row' in again && JSON.stringify(again.row)).toBe(JSON.stringify(first));
  });
});
