import { describe, expect, test } from 'vitest';

import { decide } from '../../src/core/supervise/decide.js';
import { endTimerAt } from '../../src/core/supervise/end-timer.js';
import { fixPrompt } from '../../src/core/verify/fix.js';
import type { ObservedCheck, ObservedChecks, TestCounts } from '../../src/core/verify/types.js';
import { verifyResult } from '../../src/core/verify/verdict.js';
import { at, ended, exited, observation, running, session, spec } from './builders.js';

// verify_budget: a failing final check gets one fix session (told the failures), then the check
// runs again and its verdict is the night's. The end time is 07:15; a 30-minute budget ends 07:45.

const BUDGET = { command: 'npm test', timeout: 600, budget: 1800 };
const withBudget = spec({ verify: BUDGET });
const FIX_END = at('07:45');

const tap = (passed: number, failures: string[]): TestCounts => ({
  format: 'node-tap',
  passed,
  failed: failures.length,
  skipped: 0,
  failures,
  tests: null,
});

function check(step: ObservedCheck['step'], failures: string[], over: Partial<ObservedCheck> = {}) {
  const c: ObservedCheck = {
    step,
    startedAt: at('07:16'),
    tries: 1,
    state: 'exited',
    exit: { code: failures.length > 0 ? 1 : 0, at: at('07:18') },
    counts: tap(3, failures),
    tail: '',
    ...over,
  };
  return c;
}

const explored = (checks: ObservedChecks) =>
  observation({ session: ended(session('initial'), { exit: exited(130, at('07:16')) }), checks });
const fixRecord = { ...session('fix', 2), deadline: FIX_END };
const afterFix = (checks: ObservedChecks) =>
  observation({ session: ended(fixRecord, { exit: exited(0, at('07:30')) }), checks });

describe('verify_budget', () => {
  test('a failing final check with time left: one fix session, until the budget ends', () => {
    const a = decide(withBudget, explored({ final: check('final', ['subtracts']) }), at('07:20'));
    expect(a).toMatchObject({ kind: 'start', mode: 'fix', cause: 'verify-fix', deadline: FIX_END });
    expect(a.reason).toMatch(/25m of verify_budget left/);
    expect(endTimerAt(withBudget, explored({}), a, at('07:20'))).toEqual(FIX_END);
  });

  test.each([
    ['no budget', spec({ verify: { ...BUDGET, budget: 0 } }), check('final', ['subtracts']), at('07:20')],
    ['the budget spent by the check', withBudget, check('final', ['subtracts']), at('07:50')],
    ['a passing check', withBudget, check('final', []), at('07:20')],
    ['a check with no result', withBudget, check('final', [], { state: 'timed-out' }), at('07:20')],
  ])('%s: the synthesis, no fix', (_what, s, final, now) => {
    expect(decide(s, explored({ final }), now)).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });

  test('the fix session works until the budget ends, then is stopped', () => {
    const live = (now: Date) =>
      decide(withBudget, observation({ session: running(fixRecord), outputAt: at('07:29') }), now);
    expect(live(at('07:30'))).toMatchObject({ kind: 'none', cause: 'working' });
    expect(live(at('07:45'))).toMatchObject({ kind: 'interrupt', cause: 'fix-time' });
    const waiting = observation({ session: running(fixRecord, { promptSeen: 'Proceed? (y/n)' }) });
    expect(decide(withBudget, waiting, at('07:30'))).toMatchObject({ kind: 'interrupt', hung: true });
  });

  test('after the fix, the check runs again; its verdict is the one the synthesis hears', () => {
    const final = check('final', ['subtracts']);
    expect(decide(withBudget, afterFix({ final }), at('07:31'))).toMatchObject({
      kind: 'check',
      step: 'recheck',
    });
    const recheck = check('recheck', [], { startedAt: at('07:31') });
    const a = decide(withBudget, afterFix({ final, recheck }), at('07:33'));
    expect(a).toMatchObject({ kind: 'start', mode: 'synthesis' });
    expect(a.reason).toMatch(/verified: 3 passed, 0 new failures/);
    // Still failing after the fix: no second fix session.
    const still = check('recheck', ['subtracts'], { startedAt: at('07:31') });
    expect(decide(withBudget, afterFix({ final, recheck: still }), at('07:33'))).toMatchObject({
      kind: 'start',
      mode: 'synthesis',
      reason: expect.stringMatching(/NOT verified: 1 new failure: subtracts/),
    });
  });

  test('the fix prompt lists the failures (bounded), the output and the time', () => {
    const names = Array.from({ length: 25 }, (_, i) => `test ${i}\nwith a newline`);
    const result = verifyResult(BUDGET, { final: check('final', names) }, '/records/check-final.log');
    const text = fixPrompt(result, FIX_END, true);
    expect(text).toMatch(/`npm test`.*shows 25 new failures:\n- test 0 with a newline\n/s);
    expect(text).toMatch(/- … and 5 more\n/);
    expect(text).toContain('/records/check-final.log');
    expect(text).toMatch(/Commit your fixes/);
    expect(text).not.toContain('- test 20 ');
  });
});
