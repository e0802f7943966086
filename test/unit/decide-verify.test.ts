import { describe, expect, test } from 'vitest';

import { decide } from '../../src/core/supervise/decide.js';
import type { ObservedCheck, ObservedChecks, TestCounts } from '../../src/core/verify/types.js';
import { verifyResult } from '../../src/core/verify/verdict.js';
import {
  AFTER_END,
  at,
  BEFORE_END,
  ended,
  exited,
  observation,
  REPO,
  running,
  session,
  spec,
  STARTED,
} from './builders.js';

// Decision 7 in decide: the check as a step of its own, from the observation alone.

const EVENING = new Date('2026-11-21T23:16:00Z');
const VERIFY = { command: 'npm test', timeout: 600, budget: 0 };
const withCheck = spec({ verify: VERIFY });
const repoRun = spec({ verify: VERIFY, repo: REPO });

const tap = (passed: number, failures: string[]): TestCounts => ({
  format: 'node-tap',
  passed,
  failed: failures.length,
  skipped: 0,
  failures,
  tests: null,
});

function check(over: Partial<ObservedCheck> = {}): ObservedCheck {
  return {
    step: 'final',
    startedAt: at('07:16'),
    tries: 1,
    state: 'exited',
    exit: { code: 0, at: at('07:18') },
    counts: tap(3, []),
    tail: '',
    ...over,
  };
}

const afterEnd = (checks: ObservedChecks) =>
  observation({ session: ended(session('initial'), { exit: exited(130, at('07:16')) }), checks });

describe('the final check', () => {
  test.each([
    ['not started: started before the synthesis', {}, AFTER_END, { kind: 'check', step: 'final' }],
    [
      'starting: waited for',
      { final: check({ state: 'starting', exit: null }) },
      AFTER_END,
      { kind: 'none' },
    ],
    [
      'running: watched, never under the lock',
      { final: check({ state: 'running', exit: null }) },
      at('07:20'),
      { kind: 'none', reason: 'verifying: the final check (`npm test`) is running' },
    ],
    [
      'running past verify_timeout: killed',
      { final: check({ state: 'running', exit: null }) },
      at('07:26'),
      { kind: 'stop-check', step: 'final' },
    ],
    [
      'lost once: started again',
      { final: check({ state: 'lost', exit: null }) },
      AFTER_END,
      { kind: 'check', step: 'final', again: true },
    ],
    [
      'lost twice: the synthesis, told the check gave no result',
      { final: check({ state: 'lost', exit: null, tries: 2 }) },
      AFTER_END,
      { kind: 'start', mode: 'synthesis' },
    ],
    ['exited: the synthesis', { final: check() }, AFTER_END, { kind: 'start', mode: 'synthesis' }],
  ])('%s', (_what, checks, now, want) => {
    expect(decide(withCheck, afterEnd(checks as ObservedChecks), now)).toMatchObject(want);
  });

  test('the synthesis gets its whole budget after the check', () => {
    const a = decide(withCheck, afterEnd({ final: check() }), at('07:40'));
    expect(a).toMatchObject({ kind: 'start', mode: 'synthesis', deadline: at('08:10') });
    expect(a.reason).toMatch(/verified: 3 passed, 0 new failures/);
  });

  test('an agent that finished itself is checked before DONE, and DONE says the verdict', () => {
    const obs = (checks: ObservedChecks) =>
      observation({ session: ended(session('initial'), { exit: exited(0) }), reportExists: true, checks });
    expect(decide(withCheck, obs({}), BEFORE_END)).toMatchObject({ kind: 'check', step: 'final' });
    const failing = check({ exit: { code: 1, at: at('03:01') }, counts: tap(2, ['adds']) });
    expect(decide(withCheck, obs({ final: failing }), BEFORE_END)).toMatchObject({
      kind: 'finish',
      sentinel: 'DONE',
      reason: 'finished: REPORT.md written; NOT verified: 1 new failure: adds',
    });
  });

  test('a live agent is not disturbed, and a run without a check has none', () => {
    const live = observation({ session: running() });
    expect(decide(withCheck, live, BEFORE_END)).toEqual(decide(spec(), live, BEFORE_END));
    expect(decide(spec(), afterEnd({}), AFTER_END)).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });
});

describe('the baseline', () => {
  const fresh = (checks: ObservedChecks) => observation({ session: null, checks });
  test.each([
    ['not taken: the check runs first', {}, { kind: 'check', step: 'baseline' }],
    [
      'running: the first session waits',
      { baseline: check({ step: 'baseline', state: 'running', exit: null, startedAt: STARTED }) },
      { kind: 'none' },
    ],
    [
      'taken: the first session starts',
      { baseline: check({ step: 'baseline', startedAt: STARTED }) },
      { kind: 'start', mode: 'initial' },
    ],
  ])('%s', (_what, checks, want) => {
    expect(decide(repoRun, fresh(checks as ObservedChecks), EVENING)).toMatchObject(want);
  });
  test('a plain run has no baseline', () => {
    expect(decide(withCheck, fresh({}), EVENING)).toMatchObject({ kind: 'start', mode: 'initial' });
  });
});

describe('the verdict', () => {
  const base = check({
    step: 'baseline',
    exit: { code: 1, at: EVENING },
    counts: tap(2, ['multiplies']),
  });
  test.each([
    ['the same failure as before the night: verified', tap(2, ['multiplies']), 1, 'verified', []],
    ['a new failure by name', tap(1, ['multiplies', 'subtracts']), 1, 'not-verified', ['subtracts']],
    ['all pass', tap(3, []), 0, 'verified', []],
    ['no counts: the exit code', null, 2, 'not-verified', []],
    // The baseline named its tests, the final check names none (a test script made `exit 0`).
    ['exit 0 with no counts, though the baseline had them', null, 0, 'not-verified', []],
  ])('%s', (_what, counts, code, verdict, names) => {
    const final = check({ counts, exit: { code, at: at('07:18') } });
    const v = verifyResult(VERIFY, { baseline: base, final }, '/records/check-final.log');
    expect(v).toMatchObject({ verdict, newFailures: names });
  });
  test.each([
    ['timed out', check({ state: 'timed-out' }), /verify_timeout/],
    ['command not found', check({ exit: { code: 127, at: at('07:18') }, counts: null }), /exit 127/],
    ['lost twice', check({ state: 'lost', tries: 2, exit: null }), /lost/],
  ])('%s: error', (_what, final, why) => {
    const v = verifyResult(VERIFY, { final }, null);
    expect(v.verdict).toBe('error');
    expect(v.error).toMatch(why);
  });
});
