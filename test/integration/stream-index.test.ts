import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { readStreamView } from '../../src/adapters/stream-index.js';
import { SAVE_AFTER_BYTES } from '../../src/core/agent/stream-index.js';
import { parseStream } from '../../src/core/agent/stream.js';
import { runPaths, type RunPaths } from '../../src/core/run/paths.js';

// The stream index on real files: it folds in what is new, and is rebuilt from output.log
// whenever it cannot be trusted.

const marker = (n: number) => JSON.stringify({ type: 'overnight_session', session: n, mode: 'resume' });
const result = (cost: number) =>
  JSON.stringify({ type: 'result', subtype: 'success', is_error: false, total_cost_usd: cost, result: 'ok' });
const text = (t: string) =>
  JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: t }] } });
const toolResult = (bytes: number) =>
  JSON.stringify({
    type: 'user',
    message: { content: [{ type: 'tool_result', content: 'r'.repeat(bytes) }] },
  });

let dir: string;
let paths: RunPaths;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ovt-idx-'));
  paths = runPaths(dir, '2026-11-21-2315-index');
  mkdirSync(paths.state, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const log = () => readFileSync(paths.outputLog, 'utf8');
const costs = () => readStreamView(paths).sessions.map((s) => s.result?.costUsd ?? null);
/** A log of `sessions` sessions, each with some work, padded past the 4 KB that identify it. */
const night = (sessions: number) =>
  Array.from({ length: sessions }, (_, i) =>
    [marker(i + 1), text('x'.repeat(5000)), result(i + 1)].join('\n'),
  )
    .join('\n')
    .concat('\n');

describe('the stream index', () => {
  test('written in arbitrary pieces and read after each: always what the whole text parses to', () => {
    const whole = [
      marker(1),
      text('first'),
      toolResult(3 * 1024 * 1024),
      result(0.5),
      'Error: a trace without JSON',
      marker(2),
      text('second'),
      toolResult(2_500_000),
      result(0.75),
    ].join('\n');
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    writeFileSync(paths.outputLog, '');
    for (let at = 0; at < whole.length;) {
      const next = Math.min(whole.length, at + 1 + Math.floor(random() * 700_000));
      appendFileSync(paths.outputLog, whole.slice(at, next));
      at = next;
      expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
    }
    expect(readStreamView(paths).sessions.map((s) => s.result?.costUsd)).toEqual([0.5, 0.75]);
  });

  test('lines passed over undecoded change nothing: every kind of line folds as the text parses', () => {
    const lines = [
      text('before any marker'),
      marker(1),
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 's1', model: 'm' }),
      toolResult(70_000),
      // The event's type after other keys, a type only inside text, and a key that overlaps itself.
      '{"session_id":"s1","type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","isUsingOverage":true}}',
      JSON.stringify({ type: 'user', message: { content: '"type":"result" said in text' } }),
      '{"x":"type":"type":"result","subtype":"success","total_cost_usd":0.25}',
      '{"type":"user","note":"é€😀","type":"system","subtype":"api_retry","attempt":1}',
      '{"type":"system"}',
      '{"type":"resultx"}',
      '{"type":"result',
      '   ',
      '',
      ' {"type":"result","total_cost_usd":7}',
      '\u00a0',
      'Error: a trace without JSON',
      JSON.stringify({
        type: 'assistant',
        error: 'rate_limit',
        message: { content: [{ type: 'tool_use' }] },
      }),
      result(0.5),
    ];
    writeFileSync(paths.outputLog, '');
    for (const line of lines) {
      appendFileSync(paths.outputLog, line + '\n');
      expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
    }
    writeFileSync(paths.streamIndex, '');
    expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
  });

  test('reads only what was appended since: a change to bytes it already covers goes unseen', () => {
    writeFileSync(paths.outputLog, night(3));
    expect(costs()).toEqual([1, 2, 3]);
    // Same length, past the first 4 KB: the index cannot tell, so it must not have read it again.
    writeFileSync(paths.outputLog, log().replace('"total_cost_usd":2', '"total_cost_usd":9'));
    appendFileSync(paths.outputLog, [marker(4), result(4)].join('\n') + '\n');
    expect(costs()).toEqual([1, 2, 3, 4]);
  });

  test.each([
    ['a log that shrank', () => truncateSync(paths.outputLog, 4000 + night(1).length)],
    [
      'a log replaced by another file',
      () => {
        writeFileSync(`${paths.outputLog}.new`, log().replace('"total_cost_usd":2', '"total_cost_usd":9'));
        renameSync(`${paths.outputLog}.new`, paths.outputLog);
      },
    ],
    [
      'a log whose first bytes changed',
      () => writeFileSync(paths.outputLog, log().replace('"resume"', '"RESUME"')),
    ],
    ['a corrupt index', () => writeFileSync(paths.streamIndex, '{"offset": tor')],
    ['an index of another shape', () => writeFileSync(paths.streamIndex, JSON.stringify({ shape: 'old' }))],
    ['a missing index', () => rmSync(paths.streamIndex)],
  ])('is rebuilt from the raw log after %s', (_name, change) => {
    writeFileSync(paths.outputLog, night(3));
    expect(costs()).toEqual([1, 2, 3]);
    change();
    expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
  });

  test('a line over the cap still being written is read in pieces, never whole, and counted once complete', () => {
    writeFileSync(paths.outputLog, [marker(1), text('a')].join('\n') + '\n');
    const line = toolResult(5 * 1024 * 1024);
    appendFileSync(paths.outputLog, line.slice(0, 3 * 1024 * 1024));
    expect(readStreamView(paths).sessions).toHaveLength(1);
    const stored = JSON.parse(readFileSync(paths.streamIndex, 'utf8')) as { long: { head: string } | null };
    expect(stored.long?.head.length).toBeLessThan(100 * 1024);
    appendFileSync(paths.outputLog, line.slice(3 * 1024 * 1024) + '\n' + result(2) + '\n');
    expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
  });

  test('an index that cannot be written (a full disk) is done without', () => {
    writeFileSync(paths.outputLog, night(2));
    // A directory where the index goes: every write of it fails, as on a full disk.
    mkdirSync(paths.streamIndex);
    expect(costs()).toEqual([1, 2]);
    expect(costs()).toEqual([1, 2]);
  });

  test('is written back once a reader folded SAVE_AFTER_BYTES, and read right either way', () => {
    writeFileSync(paths.outputLog, night(1));
    expect(costs()).toEqual([1]);
    const offset = () => (JSON.parse(readFileSync(paths.streamIndex, 'utf8')) as { offset: number }).offset;
    const made = offset();
    expect(made).toBe(statSync(paths.outputLog).size);
    // A few new lines: folded by each reader, the index left as it was.
    appendFileSync(paths.outputLog, [marker(2), text('a little')].join('\n') + '\n');
    expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
    expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
    expect(offset()).toBe(made);
    // Enough of them: written back, up to the log's end.
    appendFileSync(paths.outputLog, [toolResult(SAVE_AFTER_BYTES), result(2)].join('\n') + '\n');
    expect(costs()).toEqual([1, 2]);
    expect(offset()).toBe(statSync(paths.outputLog).size);
    expect(readStreamView(paths).sessions).toEqual(parseStream(log()));
  });

  test('session starts point at each session’s first line', () => {
    writeFileSync(paths.outputLog, night(3));
    const view = readStreamView(paths);
    expect(view.starts.map((at) => log().slice(at, at + marker(1).length))).toEqual([
      marker(1),
      marker(2),
      marker(3),
    ]);
  });
});
