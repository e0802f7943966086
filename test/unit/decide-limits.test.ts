import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import type { RunSpec } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { waitText } from '../../src/core/supervise/describe.js';
import type { Action, AgentNotRunning, Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_END,
  afterLimit,
  at,
  crashes,
  ended,
  errorResult,
  exited,
  observation,
  restarts,
  running,
  session,
  spec,
  waitLimit,
} from './builders.js';

// decide's rules for the night's limits: transient API trouble, paid extra usage, a report made
// late by a usage limit, and backoff cut short at the end time.

type Want = Partial<Action> & { kind: Action['kind'] };

const OVERLOADED = errorResult('API Error: Repeated 529 Overloaded errors.', {
  apiErrorStatus: 529,
  apiErrorType: 'overloaded_error',
});
const PER_MINUTE = errorResult('API Error: Request rejected (429) · per-minute rate limit', {
  apiErrorStatus: 429,
  apiErrorType: 'rate_limit_error',
});

describe('transient API trouble: waited out with backoff, never a crash restart', () => {
  /** Session n (a retry) ended at 02:59 on `result`, the `count`th API failure in a row since `since`. */
  const trouble = (over: Partial<AgentNotRunning> = {}, count = 1, since = at('02:58:30')) =>
    ended(
      { n: 2, mode: 'retry', startedAt: at('02:58') },
      { exit: exited(1, at('02:59')), result: PER_MINUTE, apiTroubles: { count, since }, ...over },
    );
  test.each<{ name: string; obs: Observation; now: Date; spec?: Partial<RunSpec>; want: Want }>([
    {
      name: 'a per-minute 429: backoff before trying again',
      obs: observation({ session: trouble() }),
      now: at('02:59:05'),
      want: {
        kind: 'wait',
        until: at('02:59:30'),
        reason:
          'the API failed (429 rate_limit_error, exit 1): API Error: Request rejected (429) · per-minute ' +
          'rate limit; not counted as a restart; backing off 30s',
      },
    },
    {
      name: 'after the backoff: a retry, which the breaker does not count',
      obs: observation({ session: trouble() }),
      now: at('02:59:30'),
      want: { kind: 'start', mode: 'retry', exit: 1 },
    },
    {
      name: 'the third in a row: the backoff doubles',
      obs: observation({ session: trouble({}, 3) }),
      now: at('03:00'),
      want: { kind: 'wait', until: at('03:01') },
    },
    {
      name: 'a 529 with the breaker already full: still waited out, not FAILED',
      obs: observation({ session: trouble({ result: OVERLOADED }), restarts: restarts(crashes(5)) }),
      now: at('02:59:30'),
      want: { kind: 'start', mode: 'retry' },
    },
    {
      name: 'lasting transient_max: FAILED with the reason',
      obs: observation({ session: trouble({ result: OVERLOADED }, 40, at('00:59')) }),
      now: at('02:59:30'),
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason:
          'the API kept failing for 2h, longer than transient_max (2h); last 529 overloaded_error (exit 1): ' +
          'API Error: Repeated 529 Overloaded errors.',
      },
    },
    {
      name: 'transient_max set lower: FAILED sooner',
      obs: observation({ session: trouble({}, 3, at('02:49')) }),
      now: at('02:59:30'),
      spec: { limits: { ...spec().limits, transientMax: 600 } },
      want: { kind: 'finish', sentinel: 'FAILED' },
    },
    {
      name: 'after the end time: the synthesis, whatever the trouble',
      obs: observation({ session: trouble({ exit: exited(1, at('07:16')) }) }),
      now: AFTER_END,
      want: { kind: 'start', mode: 'synthesis' },
    },
  ])('$name → $want.kind', ({ obs, now, spec: over, want }) => {
    expect(decide(spec(over), obs, now)).toMatchObject(want);
  });
});

describe('backoff before the synthesis is cut short at the end time', () => {
  test.each<{ name: string; result: AgentNotRunning['result']; uptime: number }>([
    { name: 'a crash loop', result: errorResult('boom'), uptime: 5 },
    { name: 'API trouble', result: OVERLOADED, uptime: 5 },
  ])('$name: the wait ends at 07:15, then the synthesis starts', ({ result }) => {
    const night = spec({ limits: { ...spec().limits, backoff: 600, backoffMax: 3600 } });
    const obs = observation({
      session: ended(
        { n: 4, mode: 'resume', startedAt: at('07:09:55') },
        { exit: exited(1, at('07:10')), result, apiTroubles: { count: 3, since: at('06:00') } },
      ),
      restarts: restarts(crashes(3), { from: at('06:50'), uptime: 5 }),
    });
    const waiting = decide(night, obs, at('07:10:01'));
    expect(waiting).toMatchObject({ kind: 'wait', until: at('07:15') });
    expect(waiting.reason).toMatch(/; backing off \d+m, cut short by the end time$/);
    expect(decide(night, obs, at('07:15'))).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });
});

test('no backoff is no wait, even for an exit recorded a moment after the pass read the clock', () => {
  const obs = observation({ session: ended(session(), { exit: exited(3, at('03:00:00.300')) }) });
  const night = spec({ limits: { ...spec().limits, backoff: 0 } });
  expect(decide(night, obs, at('03:00'))).toMatchObject({ kind: 'start', mode: 'resume', exit: 3 });
});

describe('paid extra usage', () => {
  const overage = { since: at('03:12'), resetsAt: at('05:00'), window: 'five_hour' };
  test.each<{ name: string; allow: boolean; mode: 'initial' | 'synthesis'; now: Date; want: Want }>([
    {
      name: 'not allowed: the live agent is stopped, not as hung',
      allow: false,
      mode: 'initial',
      now: at('03:13'),
      want: {
        kind: 'interrupt',
        reason:
          'paid extra usage: the five_hour limit was reached and allow_overage is off; stopping until it resets',
      },
    },
    {
      name: 'not allowed, during the synthesis: stopped too',
      allow: false,
      mode: 'synthesis',
      now: at('07:20'),
      want: { kind: 'interrupt' },
    },
    {
      name: 'allowed: it carries on',
      allow: true,
      mode: 'initial',
      now: at('03:13'),
      want: { kind: 'none' },
    },
  ])('$name → $want.kind', ({ allow, mode, now, want }) => {
    const obs = observation({ session: running(session(mode), { overage }), outputAt: now });
    const action = decide(spec({ allowOverage: allow }), obs, now);
    expect(action).toMatchObject(want);
    expect((action as { hung?: boolean }).hung).toBeUndefined();
  });

  test('stopped on overage: waited out until the reset plus limit_margin, then continued, not counted', () => {
    const limit = { ...waitLimit(at('05:00'), 'the five_hour limit was reached …'), overage: true as const };
    const obs = observation({ session: ended(session(), { exit: exited(0, at('03:13')), limit }) });
    expect(decide(spec(), obs, at('03:14'))).toMatchObject({
      kind: 'wait',
      until: afterLimit(at('05:00')),
      resetsAt: at('05:00'),
    });
    expect(decide(spec(), obs, afterLimit(at('05:00')))).toMatchObject({ kind: 'start', mode: 'continue' });
  });
});

describe('a usage limit that lifts after the synthesis budget: the report comes late', () => {
  /** The exploring session ended at 06:00 on a limit that resets at `resetsAt`. */
  const limited = (resetsAt: Date) =>
    observation({ session: ended(session(), { exit: exited(1, at('06:00')), limit: waitLimit(resetsAt) }) });

  test.each<{ name: string; resetsAt: Date; now: Date; want: Want }>([
    {
      name: 'lifting at 08:05: waiting, late',
      resetsAt: at('08:05'),
      now: at('06:01'),
      want: { kind: 'wait', until: afterLimit(at('08:05')), resetsAt: at('08:05'), late: true },
    },
    {
      name: 'lifted: the synthesis, with its whole budget from now',
      resetsAt: at('08:05'),
      now: at('08:15'),
      want: { kind: 'start', mode: 'synthesis', deadline: at('08:45') },
    },
    {
      name: 'lifting within the budget: a wait, not late',
      resetsAt: at('07:30'),
      now: at('06:01'),
      want: { kind: 'wait', until: afterLimit(at('07:30')) },
    },
    {
      name: 'lifting after late_report (13:15): DONE, no report',
      resetsAt: at('13:20'),
      now: at('06:01'),
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        reason: 'no report: five_hour limit; it lifts only after late_report (6h after the end time)',
      },
    },
  ])('$name → $want.kind', ({ resetsAt, now, want }) => {
    expect(decide(spec(), limited(resetsAt), now)).toMatchObject(want);
  });

  test('status says it plainly: "report late: limit lifts at 08:05"', () => {
    const wait = decide(spec(), limited(at('08:05')), at('06:01')) as Extract<Action, { kind: 'wait' }>;
    expect(waitText(wait, localTime('UTC'))).toBe(
      'report late: limit lifts at 08:05 (five_hour limit); the report is written then, from ' +
        afterLimit(at('08:05')).toISOString().slice(11, 19),
    );
  });

  test('the late synthesis runs until its own deadline, and its retries keep it', () => {
    const late = { n: 3, mode: 'synthesis' as const, startedAt: at('08:10'), deadline: at('08:40') };
    expect(decide(spec(), observation({ session: running(late) }), at('08:30'))).toMatchObject({
      kind: 'none',
    });
    expect(decide(spec(), observation({ session: running(late) }), at('08:40'))).toMatchObject({
      kind: 'finish',
      reason: 'report incomplete: the synthesis was still running when its budget ran out',
    });
    const failedOnce = observation({ session: ended(late, { exit: exited(1, at('08:20')) }) });
    expect(decide(spec(), failedOnce, at('08:21'))).toMatchObject({
      kind: 'start',
      mode: 'synthesis',
      deadline: at('08:40'),
    });
  });
});
