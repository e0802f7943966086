import { describe, expect, test } from 'vitest';

import { supervisionWarning } from '../../src/core/status/supervision.js';
import { ago, timeLeft, type TableRow } from '../../src/core/status/table.js';

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

describe('supervisionWarning', () => {
  const at = (iso: string) => new Date(iso);
  const cron = { backend: 'cron' as const, everySeconds: 300 };
  test.each<{ name: string; args: Parameters<typeof supervisionWarning>; want: string | null }>([
    { name: 'no live runs: nothing to say', args: [null, null, 0, NOW], want: null },
    {
      name: 'live runs, no schedule',
      args: [null, null, 2, NOW],
      want:
        'warning: no schedule is installed: these runs will not be restarted after a crash. ' +
        'Run `overnight schedule install`.',
    },
    {
      name: 'one live run (launch), no schedule',
      args: [null, null, 1, NOW],
      want:
        'warning: no schedule is installed: the run will not be restarted after a crash. ' +
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
