import { describe, expect, test } from 'vitest';

import { startVerdict, WAIT_DEFAULT_S, waitSeconds } from '../../src/core/run/first-seconds.js';
import type { Cause } from '../../src/core/supervise/causes.js';

// `launch --wait`: the first seconds judged from cause codes, never from the prose.

const ev = (cause: Cause, reason = `said in words: ${cause}`) => ({ cause, reason });

describe('startVerdict', () => {
  test.each<{ name: string; args: Parameters<typeof startVerdict>; want: string | null }>([
    { name: 'nothing yet', args: [null, []], want: null },
    { name: 'at work, restarted once', args: [null, [ev('first-session'), ev('crash')]], want: null },
    { name: 'a login refused once', args: [null, [ev('first-session'), ev('login-retry')]], want: 'failing' },
    { name: 'an account on hold', args: [null, [ev('account-on-hold')]], want: 'failing' },
    {
      name: 'FAILED',
      args: [{ kind: 'FAILED', reason: 'authentication failed 2 times', cause: 'refused-login' }, []],
      want: 'failed',
    },
    {
      name: 'DONE without a report',
      args: [{ kind: 'DONE', reason: 'no report', cause: 'no-report' }, []],
      want: 'failed',
    },
    {
      name: 'DONE with its report',
      args: [{ kind: 'DONE', reason: 'finished: REPORT.md written', cause: 'report-written' }, []],
      want: 'done',
    },
    {
      name: 'prose that sounds bad is not read',
      args: [null, [ev('working', 'authentication failed; FAILED; circuit breaker')]],
      want: null,
    },
  ])('$name → $want', ({ args, want }) => {
    expect(startVerdict(...args)?.kind ?? null).toBe(want);
  });
});

describe('waitSeconds', () => {
  test.each<{ given: string | boolean; want: number }>([
    { given: true, want: WAIT_DEFAULT_S },
    { given: '5s', want: 5 },
    { given: '2m', want: 120 },
  ])('$given → $want', ({ given, want }) => {
    expect(waitSeconds(given)).toBe(want);
  });

  test.each(['0s', 'forever', '11m', ''])('%j is refused, naming the value and the fix', (given) => {
    expect(() => waitSeconds(given)).toThrow(
      /^--wait .* is not a wait launch can take; give a duration such as/,
    );
  });
});
