import { describe, expect, test } from 'vitest';

import type { Limits, RestartEntry, SessionMode } from '../../src/core/run/types.js';
import { failureStreak, restartDelay } from '../../src/core/supervise/backoff.js';

// backoff 30s doubling to 10m; healthy after 10m of running.
const LIMITS: Limits = {
  maxRestarts: 5,
  synthesisBudget: 1800,
  staleAfter: 1800,
  hangGrace: 300,
  backoff: 30,
  backoffMax: 600,
  healthyAfter: 600,
  minUptime: 60,
  limitMargin: 300,
  maxTranscript: 256 * 1024 * 1024,
  stopGrace: 10,
};

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
  test.each<[string, RestartEntry[], number, number]>([
    ['a first crash restarts at once', log(), 5, 0],
    ['a crash after a healthy session restarts at once', log(['resume', 3]), 900, 0],
    ['second quick failure in a row: backoff', log(['resume', 3]), 4, 30],
    ['third: doubled', log(['resume', 3], ['resume', 4]), 2, 60],
    ['fourth: doubled again', log(['resume', 3], ['resume', 4], ['resume', 1]), 2, 120],
    ['capped at backoff_max', log(...Array<[SessionMode, number]>(10).fill(['resume', 1])), 1, 600],
    [
      'a healthy session in between resets the count',
      log(['resume', 1], ['resume', 1], ['resume', 700], ['resume', 2]),
      3,
      30,
    ],
    ['quick clean exits (continue) count like crashes', log(['continue', 5], ['continue', 5]), 5, 60],
    ['the synthesis is not part of the streak', log(['resume', 1], ['synthesis', 1]), 1, 0],
    ['an unknown uptime ends the streak', log(['resume', 1], ['resume', null]), 1, 0],
  ])('%s', (_name, restarts, lastUptime, delay) => {
    expect(restartDelay(restarts, lastUptime, LIMITS)).toBe(delay);
  });

  test('backoff 0s never waits', () => {
    expect(restartDelay(log(['resume', 1], ['resume', 1]), 1, { ...LIMITS, backoff: 0 })).toBe(0);
  });
});

describe('failureStreak', () => {
  test.each<[RestartEntry[], number, number]>([
    [log(), 600, 0],
    [log(), 599, 1],
    [log(['resume', 10], ['continue', 20]), 30, 3],
  ])('%#', (restarts, lastUptime, streak) => {
    expect(failureStreak(restarts, lastUptime, LIMITS)).toBe(streak);
  });
});
