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
  test.each<{ name: string; row: Partial<TableRow>; want: string }>([
    { name: 'running, 4h15m to go', row: {}, want: '4h15m' },
    { name: 'waiting, 45s to go', row: { state: 'waiting', endsAt: '2026-11-22T03:00:45Z' }, want: '45s' },
    { name: 'paused, a day to go', row: { state: 'paused', endsAt: '2026-11-23T04:00:00Z' }, want: '1d1h' },
    { name: 'exactly at the end', row: { endsAt: NOW.toISOString() }, want: 'ended' },
    {
      name: 'synthesizing after the end',
      row: { state: 'synthesizing', endsAt: '2026-11-22T02:00:00Z' },
      want: 'ended',
    },
    { name: 'done before its end time', row: { state: 'done' }, want: '-' },
    { name: 'failed', row: { state: 'failed', endsAt: '2026-11-22T02:00:00Z' }, want: '-' },
    { name: 'unreadable run without an end', row: { state: 'waiting', endsAt: null }, want: '-' },
  ])('$name → $want', ({ row: over, want }) => {
    expect(timeLeft(row(over), NOW)).toBe(want);
  });

  test('under a second to go is still shown as something', () => {
    expect(timeLeft(row({ endsAt: '2026-11-22T03:00:00.300Z' }), NOW)).not.toBe('');
  });
});

describe('ago', () => {
  test.each<{ at: string | null; want: string }>([
    { at: null, want: 'never' },
    { at: '2026-11-22T03:00:00Z', want: 'just now' },
    { at: '2026-11-22T02:59:59.500Z', want: 'just now' },
    { at: '2026-11-22T03:00:30Z', want: 'just now' }, // a clock a little ahead
    { at: '2026-11-22T02:59:15Z', want: '45s ago' },
    { at: '2026-11-22T02:58:30Z', want: '1m30s ago' },
    { at: '2026-11-21T23:00:00Z', want: '4h ago' },
    { at: '2026-11-20T02:00:00Z', want: '2d1h ago' },
  ])('$at → $want', ({ at, want }) => {
    expect(ago(at, NOW)).toBe(want);
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
      '  └ 14 tool calls denied by permissions (WebFetch 9, Bash 5); if the agent needs them, allow them: ' +
        '--allowed-tools for a new run, allowed_tools in config.yaml for every run, ' +
        "or this run's run.yaml for its next session",
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

  test.each<{ state: RunState; want: { shown: boolean; lines: number } }>([
    { state: 'failed', want: { shown: true, lines: 3 } },
    { state: 'waiting', want: { shown: true, lines: 3 } },
    { state: 'done', want: { shown: true, lines: 3 } },
    { state: 'paused', want: { shown: true, lines: 3 } },
    { state: 'running', want: { shown: false, lines: 2 } },
    { state: 'synthesizing', want: { shown: false, lines: 2 } },
  ])('$state: reason line shown → $want.shown', ({ state, want }) => {
    const lines = formatTable([row({ state, reason: 'why it is so' })], NOW);
    expect({ shown: lines.includes('  └ why it is so'), lines: lines.length }).toEqual(want);
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
  test.each<{ name: string; args: Parameters<typeof supervisionWarning>; want: string | null }>([
    { name: 'no live runs: nothing to say', args: [null, null, 0, NOW], want: null },
    {
      name: 'live runs, no schedule',
      args: [null, null, 2, NOW],
      want:
        'warning: no schedule is installed: nothing will restart these runs if they crash. ' +
        'Run `overnight schedule install`.',
    },
    {
      name: 'a schedule that never ran',
      args: [cron, null, 1, NOW],
      want: expect.stringMatching(/no reconcile pass has run yet \(cron every 5m\)/),
    },
    {
      name: 'a pass 9 minutes ago, every 5m: fine',
      args: [cron, at('2026-11-22T02:51:00Z'), 1, at('2026-11-22T03:00:00Z')],
      want: null,
    },
    {
      name: 'a pass 11 minutes ago, every 5m: more than two intervals',
      args: [cron, at('2026-11-22T02:49:00Z'), 1, at('2026-11-22T03:00:00Z')],
      want: expect.stringMatching(/^warning: no reconcile pass for 11m \(cron every 5m\)/),
    },
  ])('$name', ({ args, want }) => {
    expect(supervisionWarning(...args)).toEqual(want);
  });
});

describe('formatTable: nights that continue each other', () => {
  test.each([
    {
      name: 'a follow-up',
      over: { continues: '2026-11-20-2200-x' },
      want: ['  └ continues 2026-11-20-2200-x'],
    },
    {
      name: 'a continued run',
      over: { state: 'done' as const, continuedBy: '2026-11-22-2300-x' },
      want: ['  └ continued by 2026-11-22-2300-x'],
    },
    {
      name: 'the middle night of three',
      over: { continues: 'a', continuedBy: 'c' },
      want: ['  └ continues a', '  └ continued by c'],
    },
    { name: 'a night of its own', over: {}, want: [] },
  ])('$name → $want', ({ over, want }) => {
    expect(formatTable([row(over)], NOW).slice(2)).toEqual(want);
  });
});
