import { describe, expect, test } from 'vitest';

import type { RunState } from '../../src/core/run/types.js';
import { supervisionWarning } from '../../src/core/status/supervision.js';
import { ago, formatTable, timeLeft, type TableRow } from '../../src/core/status/table.js';

const NOW = new Date('2026-11-22T03:00:00Z');

function row(over: Partial<TableRow> = {}): TableRow {
  return {
    id: '2026-11-21-2315-survey-crdt',
    state: 'running',
    endsAt: '2026-11-22T07:15:00.000Z',
    restarts: 0,
    maxRestarts: 5,
    findings: 3,
    questions: 1,
    lastOutputAt: '2026-11-22T02:55:00.000Z',
    reason: '',
    ...over,
  };
}

describe('timeLeft', () => {
  test.each<[string, Partial<TableRow>, string]>([
    ['running, 4h15m to go', {}, '4h15m'],
    ['waiting, 45s to go', { state: 'waiting', endsAt: '2026-11-22T03:00:45Z' }, '45s'],
    ['paused, a day to go', { state: 'paused', endsAt: '2026-11-23T04:00:00Z' }, '1d1h'],
    ['exactly at the end', { endsAt: NOW.toISOString() }, 'ended'],
    ['synthesizing after the end', { state: 'synthesizing', endsAt: '2026-11-22T02:00:00Z' }, 'ended'],
    ['done before its end time', { state: 'done' }, '-'],
    ['failed', { state: 'failed', endsAt: '2026-11-22T02:00:00Z' }, '-'],
    ['unreadable run without an end', { state: 'waiting', endsAt: null }, '-'],
  ])('%s → %s', (_name, over, want) => {
    expect(timeLeft(row(over), NOW)).toBe(want);
  });

  test('under a second to go is still shown as something', () => {
    expect(timeLeft(row({ endsAt: '2026-11-22T03:00:00.300Z' }), NOW)).not.toBe('');
  });
});

describe('ago', () => {
  test.each([
    [null, 'never'],
    ['2026-11-22T03:00:00Z', 'just now'],
    ['2026-11-22T02:59:59.500Z', 'just now'],
    ['2026-11-22T03:00:30Z', 'just now'], // a clock a little ahead
    ['2026-11-22T02:59:15Z', '45s ago'],
    ['2026-11-22T02:58:30Z', '1m30s ago'],
    ['2026-11-21T23:00:00Z', '4h ago'],
    ['2026-11-20T02:00:00Z', '2d1h ago'],
  ])('%s → %s', (iso, want) => {
    expect(ago(iso, NOW)).toBe(want);
  });
});

describe('formatTable', () => {
  test('the header alone when there are no runs', () => {
    expect(formatTable([], NOW)).toEqual([
      'RUN  STATE  LEFT  RESTARTS  FINDINGS  QUESTIONS  COST  LAST ACTIVITY',
    ]);
  });

  test('columns are aligned to the widest cell, two spaces apart, the last one unpadded', () => {
    const lines = formatTable(
      [
        row(),
        row({
          id: '2026-11-20-2200-x',
          state: 'failed',
          restarts: 5,
          findings: 12,
          questions: 0,
          lastOutputAt: null,
          reason: 'circuit breaker: 5 restarts, last exit 1',
          costUsd: 12.345,
          permissionDenials: {
            count: 14,
            tools: [
              { name: 'WebFetch', count: 9 },
              { name: 'Bash', count: 5 },
            ],
          },
        }),
      ],
      NOW,
    );
    expect(lines).toEqual([
      'RUN                          STATE    LEFT   RESTARTS  FINDINGS  QUESTIONS  COST    LAST ACTIVITY',
      '2026-11-21-2315-survey-crdt  running  4h15m  0/5       3         1          $0.00   5m ago',
      '2026-11-20-2200-x            failed   -      5/5       12        0          $12.35  never',
      '  └ circuit breaker: 5 restarts, last exit 1',
      '  └ 14 tool calls denied by permissions (WebFetch 9, Bash 5); add them to allowed_tools if the agent needs them',
    ]);
  });

  test('every column starts where its heading starts, whatever the widths', () => {
    const rows = [
      row({ id: 'a', findings: 1234567890, questions: 42 }),
      row({ id: '2026-11-21-2315-' + 'x'.repeat(40), state: 'synthesizing', restarts: 10, maxRestarts: 10 }),
      row({ id: 'mid-length-id', state: 'paused', endsAt: null, lastOutputAt: null }),
    ];
    const [header, ...body] = formatTable(rows, NOW) as [string, ...string[]];
    const starts = ['STATE', 'LEFT', 'RESTARTS', 'FINDINGS', 'QUESTIONS', 'COST', 'LAST ACTIVITY'].map((h) =>
      header.indexOf(h),
    );
    const dataLines = body.filter((l) => !l.startsWith('  └'));
    expect(dataLines).toHaveLength(3);
    for (const line of dataLines) {
      for (const start of starts) {
        expect(line.slice(start - 2, start)).toBe('  ');
        expect(line[start]).not.toBe(' ');
      }
      expect(line).not.toMatch(/\s$/);
    }
  });

  test.each<[RunState, boolean]>([
    ['failed', true],
    ['waiting', true],
    ['done', true],
    ['paused', true],
    ['running', false],
    ['synthesizing', false],
  ])('%s: reason line shown → %s', (state, shown) => {
    const lines = formatTable([row({ state, reason: 'why it is so' })], NOW);
    expect(lines.includes('  └ why it is so')).toBe(shown);
    expect(lines).toHaveLength(shown ? 3 : 2);
  });

  test('no reason line for an empty reason', () => {
    expect(formatTable([row({ state: 'failed', reason: '' })], NOW)).toHaveLength(2);
  });

  test('reason lines follow their own run', () => {
    const lines = formatTable(
      [
        row({ id: 'r1', state: 'done', reason: 'one' }),
        row({ id: 'r2' }),
        row({ id: 'r3', state: 'waiting', reason: 'three' }),
      ],
      NOW,
    );
    expect(lines.map((l) => l.split(' ')[0] || l.trim())).toEqual([
      'RUN',
      'r1',
      '└ one',
      'r2',
      'r3',
      '└ three',
    ]);
  });

  test('a run with a problem is flagged with !, and unknown max restarts shown as ?', () => {
    const lines = formatTable(
      [
        row({
          state: 'waiting',
          problem: 'run.yaml: not YAML',
          maxRestarts: null,
          restarts: 2,
          reason: 'run.yaml: not YAML',
        }),
      ],
      NOW,
    );
    expect(lines[1]).toMatch(/^2026-11-21-2315-survey-crdt {2}waiting! {2}4h15m {2}2\/\? /);
    expect(lines[2]).toBe('  └ run.yaml: not YAML');
  });
});

describe('supervisionWarning', () => {
  const at = (iso: string) => new Date(iso);
  const cron = { backend: 'cron' as const, everySeconds: 300 };
  test.each<[string, Parameters<typeof supervisionWarning>, RegExp | null]>([
    ['no live runs: nothing to say', [null, null, 0, NOW], null],
    [
      'live runs, no schedule',
      [null, null, 2, NOW],
      /^warning: no schedule is installed: nothing will restart these runs if they crash\. Run `overnight schedule install`\.$/,
    ],
    ['a schedule that never ran', [cron, null, 1, NOW], /no reconcile pass has run yet \(cron every 5m\)/],
    [
      'a pass 9 minutes ago, every 5m: fine',
      [cron, at('2026-11-22T02:51:00Z'), 1, at('2026-11-22T03:00:00Z')],
      null,
    ],
    [
      'a pass 11 minutes ago, every 5m: more than two intervals',
      [cron, at('2026-11-22T02:49:00Z'), 1, at('2026-11-22T03:00:00Z')],
      /^warning: no reconcile pass for 11m \(cron every 5m\)/,
    ],
  ])('%s', (_name, args, want) => {
    const line = supervisionWarning(...args);
    if (want === null) expect(line).toBeNull();
    else expect(line).toMatch(want);
  });
});
