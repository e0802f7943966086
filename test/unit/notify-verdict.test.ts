import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { eventOf, type RunFacts } from '../../src/core/notify/events.js';
import { commandCall, headline, message } from '../../src/core/notify/format.js';

// A run with a check ends: the notification says overnight's verdict, from the finish line's
// `verdict` and `check` (act records them), never read from the reason's prose.

const UTC = localTime('UTC');
const run: RunFacts = {
  id: 'r1',
  workspace: '/runs/r1',
  report: '/runs/r1/REPORT.md',
  task: 'Fix the maths',
};

function finish(verdict: unknown, check: unknown, reason = `finished: REPORT.md written; ${String(check)}`) {
  const line = { at: '2026-11-22T07:40:00.000Z', from: 'synthesizing', to: 'done', action: 'finish' };
  const event = eventOf({ ...line, reason, cause: 'report-written', verdict, check }, 64, run);
  if (!event) throw new Error('no event');
  return event;
}

describe('the verdict in notifications', () => {
  test('verified: done, the counts first, the reason not saying them twice', () => {
    const e = finish('verified', 'verified: 212 passed, 0 new failures');
    expect(e.kinds).toEqual(['done']);
    expect(headline(e, UTC)).toBe('done, verified: the report is ready');
    expect(message(e).split('\n')).toEqual([
      'run r1',
      'task: Fix the maths',
      'verified: 212 passed, 0 new failures',
      'finished: REPORT.md written',
      'report: /runs/r1/REPORT.md',
      'overnight status r1',
    ]);
  });

  test('NOT verified: a needs-you run, whatever the report says', () => {
    const e = finish('not-verified', 'NOT verified: 2 new failures: a, b');
    expect(e.kinds).toEqual(['needs-you', 'done']);
    expect(headline(e, UTC)).toBe('done, NOT verified: needs you');
    expect(message(e)).toMatch(/^NOT verified: 2 new failures: a, b$/m);
    const call = commandCall(
      { kind: 'command', id: 'x', label: 'x', on: [], command: '/bin/x', args: [] },
      e,
      {},
      UTC,
    );
    expect(call.ok && call.value.env.OVERNIGHT_VERDICT).toBe('not-verified');
  });

  test('a check with no result needs you too', () => {
    const e = finish('error', 'check error: the check was killed at verify_timeout (2s)');
    expect(e.kinds).toEqual(['needs-you', 'done']);
    expect(headline(e, UTC)).toBe('done, the check gave no result: needs you');
  });

  test('a verdict that is none of overnight’s, or a line planted in the check text, is left out', () => {
    const e = finish('verified!', 'x');
    expect(e.verify).toBeUndefined();
    expect(e.kinds).toEqual(['done']);
    const long = finish('not-verified', `NOT verified\n${'x'.repeat(1000)}`);
    expect(long.verify?.line).not.toContain('\n');
    expect(long.verify?.line.length).toBeLessThanOrEqual(300);
  });

  test('unchanged: nothing on the branch is no success, and needs the person', () => {
    const e = finish('unchanged', 'unchanged: the night left nothing on the branch to check');
    expect(e.kinds).toEqual(['needs-you', 'done']);
    expect(headline(e, UTC)).toBe('done, unchanged: needs you');
  });

  test('the tests the night changed ride with the verdict; a rejecting review needs the person', () => {
    const line = { at: '2026-11-22T07:40:00.000Z', from: 'synthesizing', to: 'done', action: 'finish' };
    const check = 'verified: 3 passed, 0 new failures; the night changed its tests: test/a.test.mjs';
    const e = eventOf(
      {
        ...line,
        reason: 'finished: REPORT.md written',
        cause: 'report-written',
        verdict: 'verified',
        check,
        review: 'reject',
        reviewLine: 'review: reject (1 finding, 1 high): the fix hides the bug',
      },
      64,
      run,
    );
    expect(e?.kinds).toEqual(['needs-you', 'done']);
    expect(headline(e as NonNullable<typeof e>, UTC)).toBe('done, the review rejects it: needs you');
    expect(message(e as NonNullable<typeof e>)).toMatch(
      /the night changed its tests: test\/a.test.mjs\nreview: reject/,
    );
    // A review the line does not name as one of its words is no review.
    const odd = eventOf({ ...line, reason: 'x', cause: 'report-written', review: '<b>approve</b>' }, 64, run);
    expect(odd?.review).toBeUndefined();
  });
});
