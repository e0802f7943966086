/* eslint-disable no-control-regex -- colour sequences are what these tests look for */
import { beforeAll, describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import type { RunState } from '../../src/core/run/types.js';
import { formatBoard, type BoardOptions } from '../../src/core/status/board.js';
import { fitColumns, loadWidths, truncate, width } from '../../src/core/status/fit.js';
import { hangLine, pastEndLine, retryLine } from '../../src/core/status/live.js';
import { needCode, orderRows, summarize, summaryLine } from '../../src/core/status/needs.js';
import type { TableRow } from '../../src/core/status/table.js';
import type { Need } from '../../src/core/supervise/attention.js';
import { tableRow } from './builders.js';

// The Unicode width tables, as a status whose table needs them has them (fit-widths.test.ts: without).
beforeAll(loadWidths);

const NOW = new Date('2026-11-22T08:00:00Z');
const UTC = localTime('UTC');

const row = tableRow;

const board = (rows: TableRow[], over: Partial<BoardOptions> = {}) =>
  formatBoard(rows, NOW, { width: null, colour: false, clock: UTC, ...over });

describe('needCode: which runs need the person', () => {
  test.each<{ name: string; over: Partial<TableRow>; want: Need | null }>([
    { name: 'a running run', over: {}, want: null },
    {
      name: 'done with its report',
      over: { state: 'done', report: true, cause: 'report-written', reason: 'finished' },
      want: null,
    },
    {
      name: 'stopped by the person',
      over: { state: 'done', cause: 'stopped', reason: 'stopped by user' },
      want: null,
    },
    {
      name: 'failed',
      over: { state: 'failed', cause: 'breaker', reason: 'circuit breaker: 5 restarts' },
      want: 'failed',
    },
    { name: 'done without a report', over: { state: 'done', reason: 'finished' }, want: 'no-report' },
    {
      name: 'done, a cached row that says no report',
      over: { state: 'done', report: undefined, reason: 'no report: the synthesis ended' },
      want: 'no-report',
    },
    {
      name: 'done, an incomplete report that exists',
      over: { state: 'done', report: true, cause: 'report-incomplete', reason: 'report incomplete: …' },
      want: null,
    },
    {
      name: 'on paid extra usage',
      over: {
        onOverage: true,
        warnings: [{ code: 'overage', text: 'on extra usage since 02:10: the window is spent' }],
      },
      want: 'overage',
    },
    {
      name: 'waiting out paid extra usage',
      over: { state: 'waiting', cause: 'overage', reason: 'waiting: paid extra usage: …' },
      want: 'overage',
    },
    {
      name: 'waiting out paid extra usage, a row cached before codes',
      over: { state: 'waiting', reason: 'waiting: paid extra usage: the five_hour limit was reached' },
      want: 'overage',
    },
    {
      name: 'notifications failing',
      over: {
        state: 'done',
        report: true,
        notifyFailing: true,
        warnings: [{ code: 'notify-failing', text: 'notifications failing: x' }],
      },
      want: 'notifications',
    },
    { name: 'a file that cannot be used', over: { problem: 'run.yaml: not YAML' }, want: 'broken-file' },
  ])('$name → $want', ({ over, want }) => {
    expect(needCode(row(over))).toEqual(want);
  });
});

describe('the summary line', () => {
  test.each<{ name: string; states: RunState[]; want: string }>([
    { name: 'nothing', states: [], want: '0 runs' },
    { name: 'one running', states: ['running'], want: '1 run · 1 running' },
    {
      name: 'a mixed night',
      states: ['running', 'running', 'waiting', 'failed', 'done', 'done'],
      want: '6 runs · 2 running · 1 waiting · 1 needs you · 1 failed · 2 done',
    },
  ])('$name → $want', ({ states, want }) => {
    const rows = states.map((state) => row({ state, report: true, reason: 'r' }));
    expect(summaryLine(summarize(rows))).toBe(want);
  });
});

describe('the order of the table', () => {
  test('needs the person first, then live runs, then the rest, each by start time (not by id)', () => {
    const rows = [
      row({ id: 'a-done', state: 'done', report: true, startedAt: '2026-11-21T20:00:00Z' }),
      row({ id: 'b-late', startedAt: '2026-11-21T23:00:00Z' }),
      // Launched under another TZ: its id sorts first, it started later.
      row({ id: '0-tokyo', startedAt: '2026-11-22T01:00:00Z' }),
      row({ id: 'c-failed', state: 'failed', reason: 'x', startedAt: '2026-11-21T22:00:00Z' }),
      row({ id: 'd-early', startedAt: '2026-11-21T21:00:00Z' }),
    ];
    expect(orderRows(rows).rows.map((r) => r.id)).toEqual([
      'c-failed',
      'd-early',
      'b-late',
      '0-tokyo',
      'a-done',
    ]);
  });

  test('finished runs that need nothing are counted in one line when collapsed', () => {
    const rows = [
      ...Array.from({ length: 9 }, (_, i) => row({ id: `s${i}`, state: 'done', reason: 'stopped by user' })),
      row({ id: 'f', state: 'failed', reason: 'circuit breaker' }),
    ];
    const lines = board(rows, { collapse: (r) => r.state === 'done' });
    expect(lines[0]).toBe('10 runs · 1 needs you · 1 failed · 9 done');
    expect(lines.at(-1)).toBe('9 finished runs need nothing · overnight status --all');
    expect(lines.filter((l) => l.includes('stopped by user'))).toEqual([]);
  });
});

describe('the board', () => {
  test('a summary, the header, each run with what it needs said under it', () => {
    const lines = board([
      row(),
      row({
        id: '2026-11-21-2200-x',
        state: 'failed',
        startedAt: '2026-11-21T22:00:00Z',
        restarts: 5,
        findings: 12,
        questions: 0,
        lastOutputAt: null,
        reason: 'circuit breaker: 5 restarts, last exit 1',
        costUsd: 12.345,
        task: 'X',
      }),
    ]);
    expect(lines).toEqual([
      '2 runs · 1 running · 1 needs you · 1 failed',
      'RUN                          STATE    STARTED    LEFT   RESTARTS  FINDINGS  QUESTIONS  COST    ACTIVITY  TASK',
      '2026-11-21-2200-x            failed   Sat 22:00  -      5/5       12        0          $12.35  never     X',
      '  └ needs you: circuit breaker: 5 restarts, last exit 1; findings/ holds 12 files',
      '2026-11-21-2315-survey-crdt  running  Sat 23:15  1h15m  0/5       3         1          $0.00   5m ago    Survey CRDT libraries',
    ]);
  });

  test.each([80, 100, 120])('no line wider than a %i-column terminal, ids and tasks cut with …', (cols) => {
    const long = row({
      id: `2026-11-21-2315-${'very-long-name-'.repeat(4)}`,
      task: 'Research every CRDT library there is and compare them on size, speed and features '.repeat(2),
      state: 'failed',
      reason: 'circuit breaker: '.repeat(20),
      warnings: [{ code: 'other', text: 'w'.repeat(300) }],
    });
    const lines = board([long, row({ task: '日本語のタスク'.repeat(10) })], { width: cols });
    for (const line of lines) expect(width(line), line).toBeLessThanOrEqual(cols);
    expect(lines.join('\n')).toContain('…');
    // What needs the person is wrapped, not cut: its last words (often the fix) are there.
    expect(lines.join(' ')).toContain('findings/ holds 3 files');
    expect(lines.filter((l) => l.startsWith('    ')).length).toBeGreaterThan(0);
    expect(lines[1]).toMatch(/^RUN +STATE/);
  });

  test('--wide (no width) keeps every cell whole', () => {
    const task = 'A task of some length that would not fit in a narrow terminal at all, not at all';
    expect(board([row({ task })]).join('\n')).toContain(task);
  });

  test('colour by state, only when asked, around text already made safe', () => {
    const plain = board([row({ state: 'failed', reason: 'bad \x1b]52;c;x\x07' })]);
    expect(plain.join('\n')).not.toContain('\x1b');
    const coloured = board([row({ state: 'failed', reason: 'bad \x1b]52;c;x\x07' })], { colour: true });
    expect(coloured.join('\n')).toContain('\x1b[31;1mfailed');
    const stripped = coloured.join('\n').replace(/\x1b\[[\d;]*m/g, '');
    expect(stripped).not.toContain('\x1b');
    expect(stripped).toContain('\\x1b]52');
  });

  test('a live run says what it is doing now', () => {
    const lines = board([row({ doing: ['retrying the API: 14 tries since 07:52 (429 rate_limit)'] })]);
    expect(lines.at(-1)).toBe('  └ retrying the API: 14 tries since 07:52 (429 rate_limit)');
  });

  test('a run with a problem is flagged with !, and unknown max restarts shown as ?', () => {
    const lines = board([
      row({ state: 'waiting', problem: 'run.yaml: not YAML', maxRestarts: null, restarts: 2, reason: 'x' }),
    ]);
    expect(lines[2]).toMatch(/^2026-11-21-2315-survey-crdt {2}waiting! {2}Sat 23:15 {2}1h15m {2}2\/\? /);
    expect(lines[3]).toBe('  └ needs you: a file cannot be used: x');
  });

  test.each([
    { name: 'a follow-up', over: { continues: 'a' }, want: ['  └ continues a'] },
    {
      name: 'the middle night',
      over: { continues: 'a', continuedBy: 'c' },
      want: ['  └ continues a', '  └ continued by c'],
    },
    { name: 'a night of its own', over: {}, want: [] },
  ])('nights that continue each other: $name', ({ over, want }) => {
    expect(board([row(over)]).slice(3)).toEqual(want);
  });

  test.each<{ state: RunState; shown: boolean }>([
    { state: 'waiting', shown: true },
    { state: 'paused', shown: true },
    { state: 'running', shown: false },
    { state: 'synthesizing', shown: false },
  ])('$state: its reason said under it → $shown', ({ state, shown }) => {
    expect(board([row({ state, reason: 'why it is so' })]).includes('  └ why it is so')).toBe(shown);
  });
});

describe('fitting columns', () => {
  test('a flexible column shrinks to its minimum, then optional columns go, lowest first', () => {
    const cols = [
      { header: 'A', cells: ['a'.repeat(30)], min: 10 },
      { header: 'B', cells: ['b'.repeat(10)], drop: 2 },
      { header: 'C', cells: ['c'.repeat(30)], min: 5, drop: 1 },
    ];
    expect(fitColumns(cols, null).map((c) => c.width)).toEqual([30, 10, 30]);
    expect(fitColumns(cols, 60).map((c) => [c.column.header, c.width])).toEqual([
      ['A', 30],
      ['B', 10],
      ['C', 16],
    ]);
    expect(fitColumns(cols, 30).map((c) => [c.column.header, c.width])).toEqual([
      ['A', 11],
      ['B', 10],
      ['C', 5],
    ]);
    expect(fitColumns(cols, 25).map((c) => [c.column.header, c.width])).toEqual([
      ['A', 13],
      ['B', 10],
    ]);
  });

  test('optional columns with nothing to say go before any other, and before any column shrinks', () => {
    const cols = [
      { header: 'A', cells: ['a'.repeat(30)], min: 10 },
      { header: 'ZERO', cells: ['0'], drop: 3, empty: true },
      { header: 'B', cells: ['b'.repeat(10)], drop: 2 },
      { header: 'C', cells: ['c'.repeat(30)], min: 5, drop: 1 },
    ];
    expect(fitColumns(cols, 80).map((c) => c.column.header)).toEqual(['A', 'ZERO', 'B', 'C']);
    expect(fitColumns(cols, 74).map((c) => [c.column.header, c.width])).toEqual([
      ['A', 30],
      ['B', 10],
      ['C', 30],
    ]);
    expect(fitColumns(cols, 60).map((c) => [c.column.header, c.width])).toEqual([
      ['A', 30],
      ['B', 10],
      ['C', 16],
    ]);
  });

  test('at 100 columns the task stays and the columns of zeros go', () => {
    const lines = board([row({ restarts: 0, findings: 0, questions: 0 })], { width: 100 });
    expect(lines[1]).toContain('TASK');
    expect(lines[1]).not.toMatch(/RESTARTS|FINDINGS|QUESTIONS/);
    expect(lines[2]).toContain('Survey');
  });

  test.each([
    { text: 'abcdef', max: 4, want: 'abc…' },
    { text: 'abc', max: 3, want: 'abc' },
    { text: '日本語', max: 4, want: '日…' },
    { text: 'e\u0301e\u0301e\u0301', max: 2, want: 'e\u0301…' },
  ])('truncate($text, $max) → $want', ({ text, max, want }) => {
    expect(truncate(text, max)).toBe(want);
  });
});

describe('what a live run is doing', () => {
  test('an API retry storm, with its count and since when', () => {
    const since = '2026-11-22T07:52:00.000Z';
    expect(retryLine({ count: 14, status: 429, error: 'rate_limit', since }, UTC)).toBe(
      'retrying the API: 14 tries since 07:52 (429 rate_limit)',
    );
    expect(retryLine({ count: 1, status: null, error: null, since: null }, UTC)).toBe(
      'retrying the API: 1 try',
    );
  });

  test.each([
    {
      name: 'not silent',
      kind: 'none',
      cause: 'working',
      reason: 'agent running',
      watched: null,
      want: null,
    },
    {
      name: 'first seen silent',
      kind: 'watch',
      cause: 'silent',
      reason: 'no output',
      watched: null,
      want: 'silent for 12m: stopped as hung if still silent at 08:10',
    },
    {
      name: 'watched since 07:58',
      kind: 'none',
      cause: 'silent',
      reason: 'silent for 12m; watching',
      watched: '2026-11-22T07:58:00Z',
      want: 'silent for 12m: stopped as hung if still silent at 08:08',
    },
  ])('the hang watch: $name', ({ kind, cause, reason, watched, want }) => {
    const action = { kind, cause, reason } as Parameters<typeof hangLine>[0];
    const silent = new Date('2026-11-22T07:48:00Z');
    expect(hangLine(action, silent, watched ? new Date(watched) : null, 600, NOW, UTC)).toBe(want);
  });

  test.each([
    { name: 'before its end', endsAt: '2026-11-22T09:00:00Z', last: null, scheduled: false, want: false },
    {
      name: 'past it, no pass, no schedule',
      endsAt: '2026-11-22T07:55:00Z',
      last: null,
      scheduled: false,
      want: true,
    },
    {
      name: 'past it, a pass since',
      endsAt: '2026-11-22T07:00:00Z',
      last: '2026-11-22T07:05:00Z',
      scheduled: true,
      want: false,
    },
    {
      name: 'just past it, a schedule',
      endsAt: '2026-11-22T07:55:00Z',
      last: '2026-11-22T07:50:00Z',
      scheduled: true,
      want: false,
    },
    {
      name: 'long past it, a schedule that stopped',
      endsAt: '2026-11-22T07:00:00Z',
      last: '2026-11-22T06:55:00Z',
      scheduled: true,
      want: true,
    },
  ])('past its end time: $name → $want', ({ endsAt, last, scheduled, want }) => {
    const passes = { lastPassAt: last ? new Date(last) : null, scheduled };
    const line = pastEndLine({ state: 'running', endsAt }, passes, NOW, UTC);
    expect(line !== null).toBe(want);
    if (line) expect(line).toMatch(/^past its end time \(07:\d\d\) by \S+ and no pass has run since/);
  });
});
