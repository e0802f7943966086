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
  const cron = { backend: 'cron' as const, everySeconds: 300, installedAt: at('2026-11-22T01:00:00Z') };
  const three = at('2026-11-22T03:00:00Z');
  test.each<{ name: string; args: Parameters<typeof supervisionWarning>; want: string | null }>([
    { name: 'no live runs: nothing to say', args: [null, null, 0, NOW], want: null },
    {
      name: 'live runs, no schedule: what only a schedule does (an exit and the timers do the rest)',
      args: [null, null, 2, NOW],
      want:
        'warning: no schedule is installed: nothing resumes these runs after a reboot, and a hang is ' +
        'found only at the end time. Run `overnight schedule install`.',
    },
    {
      name: 'one live run (launch), no schedule',
      args: [null, null, 1, NOW],
      want: expect.stringMatching(
        /^warning: no schedule is installed: nothing resumes the run after a reboot/,
      ),
    },
    {
      name: 'a schedule installed 2h ago that never started a pass (other passes ran: no matter)',
      args: [cron, null, 1, three],
      want:
        'warning: the schedule (cron every 5m) has started no pass since it was installed 2h ago. ' +
        'Check `overnight schedule status` and `overnight doctor`.',
    },
    {
      name: 'a schedule installed 4 minutes ago: its first pass is still to come',
      args: [{ ...cron, installedAt: at('2026-11-22T02:56:00Z') }, null, 1, three],
      want: null,
    },
    {
      name: 'a schedule from before install times were recorded, never started',
      args: [{ ...cron, installedAt: null }, null, 1, three],
      want: expect.stringMatching(/^warning: the schedule \(cron every 5m\) has started no pass yet\. /),
    },
    {
      name: 'a scheduled pass 9 minutes ago, every 5m: fine',
      args: [cron, at('2026-11-22T02:51:00Z'), 1, three],
      want: null,
    },
    {
      name: 'a scheduled pass 11 minutes ago, every 5m: more than two intervals',
      args: [cron, at('2026-11-22T02:49:00Z'), 1, three],
      want: expect.stringMatching(/^warning: no scheduled pass for 11m \(cron every 5m\)/),
    },
  ])('$name', ({ args, want }) => {
    expect(supervisionWarning(...args)).toEqual(want);
  });
});
