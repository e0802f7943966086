import { describe, expect, test } from 'vitest';

import { parseStream } from '../../src/core/agent/stream.js';
import { decide } from '../../src/core/supervise/decide.js';
import { limitJitter, MAX_LIMIT_JITTER } from '../../src/core/supervise/jitter.js';
import { endOfSession } from '../../src/core/supervise/session-end.js';
import type { Action } from '../../src/core/supervise/types.js';
import { afterLimit, at, ended, exited, observation, session, spec } from './builders.js';

// Weekly limits (some plans have no 5-hour window): a usage limit with its own reset, waited out
// only while the report can still come (late_report); a wait of days ends the run at once. And
// the spread after a reset, fixed by the run id and the reset so decide stays pure.

const marker = JSON.stringify({
  type: 'overnight_session',
  session: 1,
  mode: 'initial',
  conversation: 'c',
  at: '2026-11-21T23:15:00Z',
});
const rejected = (resetsAt: Date) =>
  JSON.stringify({
    type: 'rate_limit_event',
    rate_limit_info: { status: 'rejected', resetsAt: resetsAt.getTime() / 1000, rateLimitType: 'seven_day' },
  });
const weekly = (text: string) =>
  JSON.stringify({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: text });

/** decide at `now` for a first session that printed `lines` and exited 1 at 02:00. */
function after(lines: string[], now: Date): Action {
  const logs = parseStream([marker, ...lines].join('\n') + '\n');
  const end = endOfSession(logs, 1, at('02:00'), 0);
  return decide(
    spec(),
    observation({ session: ended(session(), { exit: exited(1, at('02:00')), ...end }) }),
    now,
  );
}

describe('a weekly limit (the night ends at 07:15, late_report 6h)', () => {
  test.each<{ name: string; lines: string[]; now: Date; want: Partial<Action> }>([
    {
      name: 'resetting in two days (its event): ended at once, no week of sleep',
      lines: [rejected(new Date('2026-11-24T09:05:00Z')), weekly("You've hit your weekly limit")],
      now: at('02:01'),
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        reason: 'no report: seven_day limit; it lifts only after late_report (6h after the end time)',
      },
    },
    {
      name: 'resetting in two days (its words only): the same',
      lines: [weekly("You've hit your weekly limit · resets Nov 24, 9:05am (UTC)")],
      now: at('02:01'),
      want: { kind: 'finish', sentinel: 'DONE' },
    },
    {
      name: 'resetting at 04:00: waited out like the 5-hour limit',
      lines: [rejected(at('04:00')), weekly("You've hit your weekly limit")],
      now: at('02:01'),
      want: {
        kind: 'wait',
        until: afterLimit(at('04:00')),
        resetsAt: at('04:00'),
        reason: 'seven_day limit',
      },
    },
    {
      name: 'resetting at 04:00, now past it: the night goes on, not counted',
      lines: [rejected(at('04:00')), weekly("You've hit your weekly limit")],
      now: afterLimit(at('04:00')),
      want: { kind: 'start', mode: 'continue' },
    },
    {
      name: 'resetting at 10:00, within late_report: the report comes late',
      lines: [rejected(at('10:00')), weekly("You've hit your weekly limit")],
      now: at('02:01'),
      want: { kind: 'wait', until: afterLimit(at('10:00')), late: true },
    },
  ])('$name', ({ lines, now, want }) => {
    expect(after(lines, now)).toMatchObject(want);
  });
});

describe('the spread after a reset', () => {
  const reset = at('04:00');
  test.each<{ name: string; id: string; margin: number; max: number }>([
    { name: 'the default margin (5m): up to 5m more', id: 'a', margin: 300, max: MAX_LIMIT_JITTER },
    { name: 'a larger margin: still at most 5m', id: 'b', margin: 3600, max: MAX_LIMIT_JITTER },
    { name: 'a margin of seconds (a compressed night): as small', id: 'c', margin: 2, max: 2 },
    { name: 'no margin: no spread', id: 'd', margin: 0, max: 0 },
  ])('$name', ({ id, margin, max }) => {
    const j = limitJitter(id, reset, margin);
    expect(Number.isInteger(j)).toBe(true);
    expect(j).toBeGreaterThanOrEqual(0);
    expect(j).toBeLessThanOrEqual(max);
    // Pure: the same run and reset always give the same spread.
    expect(limitJitter(id, reset, margin)).toBe(j);
  });

  test('twenty runs waiting on one reset do not all start in the same second', () => {
    const spreads = new Set(Array.from({ length: 20 }, (_, i) => limitJitter(`run-${i}`, reset, 300)));
    expect(spreads.size).toBeGreaterThan(10);
  });

  test('measured on the wall clock: a pass late after a laptop sleep starts at once', () => {
    const lines = [rejected(reset), weekly("You've hit your weekly limit")];
    expect(after(lines, at('06:30'))).toMatchObject({ kind: 'start', mode: 'continue' });
  });
});
