import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { printedRow } from '../../src/core/status/json-row.js';
import { spanText, type ByteSpan } from '../../src/core/text.js';
import { parseFinal, parseFinalDoc } from '../../src/read/final-row.js';
import { loadRowCache, rowOfText } from '../../src/read/row-cache.js';
import type { StatusRow } from '../../src/read/rows.js';

// status's cache of finished runs' rows: used only while the run's records directory is as it
// was, never for a directory changed in the last seconds, kept as the text status prints, and
// read back as untrusted: a file not framed as overnight writes it is no cache.

const ID = '2026-11-21-2315-survey';
const SUMMARY = { id: ID, state: 'done', reason: 'report written', task: 'Survey' };
const STAMP = '1:2';

let root: string;
let records: string;
const cacheFile = () => join(root, '.overnight', '.status-rows');
const row = (extra: Record<string, unknown> = {}): StatusRow => {
  const got = parseFinal(JSON.stringify({ ...SUMMARY, ...extra }), ID);
  if (!('row' in got)) throw new Error(got.bad);
  return got.row;
};
const text = (span: ByteSpan) => spanText(span);
/** The records directory as last changed a minute ago. */
const settle = () => {
  const old = new Date(Date.now() - 60_000);
  utimesSync(records, old, old);
  return statSync(records);
};
interface Index {
  root: string;
  rows: unknown[][];
}
/** The file's index: its second line. */
const indexOf = (file: string) => JSON.parse(file.split('\n')[1] as string) as Index;
/** A cache holding the row, written. */
const saved = (r = row()) => {
  const st = settle();
  const cache = loadRowCache(root);
  cache.put(ID, st, r, STAMP);
  cache.save();
  return st;
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'row-cache-'));
  records = join(root, '.overnight', ID);
  mkdirSync(records, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the row cache', () => {
  test('a row put is got back, as the text status prints and as the row, while unchanged', () => {
    saved();
    const got = loadRowCache(root).get(ID, statSync(records));
    expect(got).toMatchObject({ stamp: STAMP, state: 'done', continuedBy: null, repo: false });
    // Printed with its count of open questions as openQuestions, in the row's place; read back as the row.
    expect(text(got!.text)).toBe(`  ${JSON.stringify(printedRow(row()), null, 2).replaceAll('\n', '\n  ')}`);
    expect(text(got!.text)).toMatch(/\n {4}"openQuestions": \d+,\n/);
    expect(Object.keys(printedRow(row()))).toEqual(
      Object.keys(row()).map((k) => (k === 'questions' ? 'openQuestions' : k)),
    );
    expect(rowOfText(got!.text, ID)).toEqual(row());
  });

  test('says what status needs without making the row: a follow-up, a repository', () => {
    saved(row({ continuedBy: '2026-11-22-2300-next', repo: '/src/app', branch: 'overnight/x' }));
    expect(loadRowCache(root).get(ID, statSync(records))).toMatchObject({
      continuedBy: '2026-11-22-2300-next',
      repo: true,
    });
  });

  test('a change in the records directory (a summary replaced, a run continued) misses', () => {
    saved();
    writeFileSync(join(records, 'DONE'), 'x');
    expect(loadRowCache(root).get(ID, statSync(records))).toBeNull();
  });

  test('a directory changed in the last seconds is not cached', () => {
    const cache = loadRowCache(root);
    cache.put(ID, statSync(records), row(), STAMP);
    cache.save();
    expect(() => readFileSync(cacheFile())).toThrow();
  });

  test('a removed run is dropped when the cache is next written; the earlier file goes', () => {
    writeFileSync(join(root, '.overnight', '.status-rows.json'), '{}');
    const other = '2026-11-22-0100-other';
    mkdirSync(join(root, '.overnight', other));
    saved();
    rmSync(records, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, '.overnight', other), old, old);
    const second = loadRowCache(root);
    second.put(other, statSync(join(root, '.overnight', other)), { ...row(), id: other }, STAMP);
    second.save();
    expect(indexOf(readFileSync(cacheFile(), 'utf8')).rows.map((r) => r[0])).toEqual([other]);
    expect(() => readFileSync(join(root, '.overnight', '.status-rows.json'))).toThrow();
  });

  test('rows are written in the order status lists runs, as a list prints them', () => {
    const later = '2026-11-22-0100-later';
    mkdirSync(join(root, '.overnight', later));
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, '.overnight', later), old, old);
    const cache = loadRowCache(root);
    cache.put(later, statSync(join(root, '.overnight', later)), { ...row(), id: later }, STAMP);
    cache.put(ID, settle(), row(), STAMP);
    cache.save();
    const file = readFileSync(cacheFile(), 'utf8');
    expect(indexOf(file).rows.map((r) => r[0])).toEqual([ID, later]);
    const texts = file.split('\n').slice(2).join('\n');
    expect(`[\n${texts.slice(0, -2)}\n]`).toBe(
      JSON.stringify([printedRow(row()), printedRow({ ...row(), id: later })], null, 2),
    );
  });

  test('a file of another runs root, not in its form, with a control or open to others is none', () => {
    const st = saved();
    const good = readFileSync(cacheFile(), 'utf8');
    const [head, , ...texts] = good.split('\n');
    const index = indexOf(good);
    const withIndex = (f: (x: Index) => unknown) => [head, JSON.stringify(f(index)), ...texts].join('\n');
    const withField = (i: number, v: unknown) =>
      withIndex((x) => ({ ...x, rows: [x.rows[0]!.map((f, j) => (j === i ? v : f))] }));
    for (const bad of [
      '',
      'not a cache',
      good.replace(head as string, `${head}x`),
      good.replace(head as string, 'overnight status rows 2'),
      withIndex((x) => ({ ...x, root: '/elsewhere' })),
      withIndex((x) => ({ root: x.root })),
      withIndex(() => []),
      `${head}\n{not json\n${texts.join('\n')}`,
      withField(8, (index.rows[0]![8] as number) + 1),
      withField(8, -1),
      withField(8, '12'),
      withIndex((x) => ({ ...x, rows: [x.rows[0]!.slice(0, 8)] })),
      good.slice(0, -1),
      good.slice(0, -2),
      good.replace('\n  {\n', '\n  [\n'),
      good.replace('\n  },\n', '\n  ],\n'),
      good.replace(head as string, 'overnight status rows 3 0 000000000000'),
      `${good}x`,
      good.replace('Survey', 'Surv\u001by'),
    ]) {
      writeFileSync(cacheFile(), bad);
      expect(loadRowCache(root).get(ID, st), JSON.stringify(bad)).toBeNull();
    }
    writeFileSync(cacheFile(), good);
    chmodSync(cacheFile(), 0o622);
    expect(loadRowCache(root).get(ID, st)).toBeNull();
    chmodSync(cacheFile(), 0o600);
    expect(loadRowCache(root).get(ID, st)).not.toBeNull();
  });

  test('an entry whose fields are not what overnight writes is a miss', () => {
    const st = saved();
    const good = readFileSync(cacheFile(), 'utf8');
    const [head, , ...texts] = good.split('\n');
    const index = indexOf(good);
    for (const [i, v] of [
      [1, String(st.ino)],
      [2, st.mtimeMs + 1],
      [3, st.ctimeMs - 1],
      [4, 12],
      [5, 'sleeping'],
      [6, 'not a run'],
      [6, 7],
      [7, 'yes'],
    ] as const) {
      const rows = [index.rows[0]!.map((f, j) => (j === i ? v : f))];
      writeFileSync(cacheFile(), [head, JSON.stringify({ ...index, rows }), ...texts].join('\n'));
      expect(loadRowCache(root).get(ID, st), `${i} ${v}`).toBeNull();
    }
  });

  test('a text that is not a valid row is got, but never made into one', () => {
    const st = saved();
    const good = readFileSync(cacheFile(), 'utf8');
    const twisted = good.replace('"state": "done"', '"state": "dxne"');
    expect(twisted).not.toBe(good);
    writeFileSync(cacheFile(), twisted);
    const got = loadRowCache(root).get(ID, st);
    expect(got).not.toBeNull();
    expect(rowOfText(got!.text, ID)).toBeNull();
    expect(rowOfText(got!.text, 'someone-else')).toBeNull();
  });

  test('text beyond ASCII is kept written safe; a file holding a control raw is no cache', () => {
    const st = saved(row({ task: 'Résumé \u202e des \u0085 sources 日本' }));
    const got = loadRowCache(root).get(ID, st);
    expect(text(got!.text)).toContain('Résumé \\u202e des \\u0085 sources 日本');
    const good = readFileSync(cacheFile(), 'utf8');
    // As many bytes as the escape, so the file keeps its form: each raw one makes it no cache.
    for (const raw of ['\u202e   ', '\u2066   ', '\u200f   ', '\u061c    ', '\u0085    ', '\u007f     ']) {
      expect(Buffer.byteLength(raw)).toBe(6);
      writeFileSync(cacheFile(), good.replace('\\u202e', raw));
      expect(loadRowCache(root).get(ID, st), JSON.stringify(raw)).toBeNull();
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
