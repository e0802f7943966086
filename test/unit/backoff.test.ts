import { describe, expect, test } from 'vitest';

import type { RestartEntry, SessionMode } from '../../src/core/run/types.js';
import { failureStreak, restartDelay } from '../../src/core/supervise/backoff.js';
import { spec } from './builders.js';

// The default limits: backoff 30s doubling to 10m; healthy after 10m of running.
const LIMITS = spec().limits;

/** restart.log entries, oldest first, each with the uptime of the session it followed. */
function log(...entries: [SessionMode, number | null][]): RestartEntry[] {
  return entries.map(([mode, uptime], i) => ({
    at: new Date(Date.UTC(2026, 10, 22, 0, i)),
    mode,
    exit: 1,
    uptime,
    reason: 'x',
  }));
}

describe('restartDelay', () => {
  test.each<{ name: string; restarts: RestartEntry[]; lastUptime: number; want: number }>([
    { name: 'a first crash restarts at once', restarts: log(), lastUptime: 5, want: 0 },
    {
      name: 'a crash after a healthy session restarts at once',
      restarts: log(['resume', 3]),
      lastUptime: 900,
      want: 0,
    },
    { name: 'second quick failure in a row: backoff', restarts: log(['resume', 3]), lastUptime: 4, want: 30 },
    { name: 'third: doubled', restarts: log(['resume', 3], ['resume', 4]), lastUptime: 2, want: 60 },
    {
      name: 'fourth: doubled again',
      restarts: log(['resume', 3], ['resume', 4], ['resume', 1]),
      lastUptime: 2,
      want: 120,
    },
    {
      name: 'capped at backoff_max',
      restarts: log(...Array<[SessionMode, number]>(10).fill(['resume', 1])),
      lastUptime: 1,
      want: 600,
    },
    {
      name: 'a healthy session in between resets the count',
      restarts: log(['resume', 1], ['resume', 1], ['resume', 700], ['resume', 2]),
      lastUptime: 3,
      want: 30,
    },
    {
      name: 'quick clean exits (continue) count like crashes',
      restarts: log(['continue', 5], ['continue', 5]),
      lastUptime: 5,
      want: 60,
    },
    {
      name: 'the synthesis is not part of the streak',
      restarts: log(['resume', 1], ['synthesis', 1]),
      lastUptime: 1,
      want: 0,
    },
    {
      name: 'an unknown uptime ends the streak',
      restarts: log(['resume', 1], ['resume', null]),
      lastUptime: 1,
      want: 0,
    },
  ])('$name → waits $want s', ({ restarts, lastUptime, want }) => {
    expect(restartDelay(restarts, lastUptime, LIMITS)).toBe(want);
  });

  test('backoff 0s never waits', () => {
    expect(restartDelay(log(['resume', 1], ['resume', 1]), 1, { ...LIMITS, backoff: 0 })).toBe(0);
  });
});

describe('failureStreak', () => {
  test.each<{ restarts: RestartEntry[]; lastUptime: number; want: number }>([
    { restarts: log(), lastUptime: 600, want: 0 },
    { restarts: log(), lastUptime: 599, want: 1 },
    { restarts: log(['resume', 10], ['continue', 20]), lastUptime: 30, want: 3 },
  ])(
    '$restarts.length restarts, the last session up $lastUptime s → a streak of $want',
    ({ restarts, lastUptime, want }) => {
      expect(failureStreak(restarts, lastUptime, LIMITS)).toBe(want);
    },
  );
});
