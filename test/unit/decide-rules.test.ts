import { describe, expect, test } from 'vitest';

import type { RunSpec } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { RULE_IDS, type RuleId } from '../../src/core/supervise/rules.js';
import type { Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_BUDGET,
  AFTER_END,
  at,
  BEFORE_END,
  cleanResult,
  crashes,
  done,
  ended,
  errorResult,
  exited,
  observation,
  REPO,
  restarts,
  running,
  session,
  spec,
  waitLimit,
} from './builders.js';

// decide's numbered rules (core/supervise/rules.ts), one row each: the observation that makes the
// rule decide, and the rule the action says chose it. A rule without a row fails the last test.

interface Row {
  rule: RuleId;
  /** The rule the action names, when another than the row's: 7.1 makes a start fresh, it keeps its rule. */
  says?: RuleId;
  spec?: Partial<RunSpec>;
  obs: Observation;
  now: Date;
  kind: string;
}

const SYNTHESIS = { n: 4, mode: 'synthesis' as const, startedAt: at('07:15') };
const FIX = { n: 3, mode: 'fix' as const, startedAt: at('07:16'), deadline: at('07:30') };
const VERIFY = { command: 'node --test', timeout: 600, budget: 0 };
const interrupted = () => ended(session(), { exit: exited(130, at('07:16')) });

const ROWS: Row[] = [
  {
    rule: '1',
    obs: observation({ sentinel: done('finished: REPORT.md written') }),
    now: AFTER_END,
    kind: 'none',
  },
  { rule: '2', obs: observation({ paused: true }), now: BEFORE_END, kind: 'none' },
  { rule: '3', obs: observation({ session: null }), now: BEFORE_END, kind: 'start' },
  {
    rule: '4.1',
    obs: observation({
      session: running(session(), { overage: { since: null, resetsAt: null, window: 'five_hour' } }),
    }),
    now: BEFORE_END,
    kind: 'interrupt',
  },
  { rule: '4.2', obs: observation({ session: running(SYNTHESIS) }), now: AFTER_BUDGET, kind: 'finish' },
  {
    rule: '4.3',
    obs: observation({
      session: running(session(), { promptSeen: 'Continue? (y/n)' }),
      outputAt: BEFORE_END,
    }),
    now: BEFORE_END,
    kind: 'finish',
  },
  {
    rule: '4.4',
    obs: observation({ session: running(), outputAt: AFTER_END }),
    now: AFTER_END,
    kind: 'interrupt',
  },
  {
    rule: '4.5',
    obs: observation({ session: running(), outputAt: at('01:00') }),
    now: BEFORE_END,
    kind: 'watch',
  },
  {
    rule: '4.6',
    obs: observation({ session: running(), outputAt: BEFORE_END }),
    now: BEFORE_END,
    kind: 'none',
  },
  {
    rule: '5',
    obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
    now: BEFORE_END,
    kind: 'none',
  },
  {
    rule: '6.1',
    obs: observation({ session: ended(SYNTHESIS, { exit: exited(0, at('07:30')) }), reportExists: true }),
    now: at('07:31'),
    kind: 'finish',
  },
  {
    rule: '6.1b',
    obs: observation({ session: ended(session(), { exit: exited(0), endedBy: 'time-limit' }) }),
    now: BEFORE_END,
    kind: 'start',
  },
  {
    rule: '6.2',
    obs: observation({ session: ended(session(), { exit: exited(1), limit: waitLimit(at('04:00')) }) }),
    now: BEFORE_END,
    kind: 'wait',
  },
  {
    rule: '6.3',
    obs: observation({
      session: ended(session(), { exit: exited(1), errorType: 'sandbox_required_unavailable' }),
    }),
    now: BEFORE_END,
    kind: 'finish',
  },
  {
    rule: '6.4',
    obs: observation({
      session: ended(session(), { exit: exited(1), authFailures: 1, result: errorResult('Not logged in') }),
    }),
    now: BEFORE_END,
    kind: 'start',
  },
  {
    rule: '6.5',
    obs: observation({ session: ended(SYNTHESIS, { exit: exited(1, at('07:20')) }) }),
    now: at('07:21'),
    kind: 'start',
  },
  {
    rule: '6.6',
    obs: observation({
      session: ended(session(), { exit: exited(0), result: cleanResult('done') }),
      reportExists: true,
    }),
    now: BEFORE_END,
    kind: 'finish',
  },
  {
    rule: '6.7',
    spec: { maxCost: 10 },
    obs: observation({ session: ended(session(), { exit: exited(1), costUsd: 9.5 }) }),
    now: BEFORE_END,
    kind: 'start',
  },
  { rule: '6.8', obs: observation({ session: interrupted() }), now: AFTER_END, kind: 'start' },
  {
    rule: '6.9',
    obs: observation({
      session: ended(session(), {
        exit: exited(1),
        result: errorResult('API Error: 529 Overloaded', {
          apiErrorStatus: 529,
          apiErrorType: 'overloaded_error',
        }),
        apiTroubles: { count: 1, since: at('02:59') },
      }),
    }),
    now: BEFORE_END,
    kind: 'start',
  },
  {
    rule: '6.10',
    obs: observation({
      session: ended(
        { ...session(), forked: true },
        { exit: exited(1), transcriptBytes: null, result: errorResult('No conversation found') },
      ),
    }),
    now: BEFORE_END,
    kind: 'start',
  },
  {
    rule: '6.11',
    obs: observation({
      session: ended(session('resume', 6), { exit: exited(1) }),
      restarts: restarts(crashes(5)),
    }),
    now: BEFORE_END,
    kind: 'finish',
  },
  {
    rule: '6.12',
    obs: observation({ session: ended(session(), { exit: exited(1) }) }),
    now: BEFORE_END,
    kind: 'start',
  },
  {
    rule: '7.1',
    says: '6.12',
    obs: observation({ session: ended(session(), { exit: exited(1), transcriptBytes: null }) }),
    now: BEFORE_END,
    kind: 'start',
  },
  {
    rule: '7.2',
    spec: { repo: REPO },
    obs: observation({ session: ended(session(), { exit: exited(1) }), worktreeGone: true }),
    now: BEFORE_END,
    kind: 'finish',
  },
  {
    rule: '7.3',
    spec: { verify: VERIFY },
    obs: observation({ session: interrupted() }),
    now: AFTER_END,
    kind: 'check',
  },
  {
    rule: '7.4',
    spec: { repo: REPO, review: { budget: 600, model: null } },
    obs: observation({ session: interrupted() }),
    now: AFTER_END,
    kind: 'check',
  },
];

describe("decide's numbered rules", () => {
  test.each(ROWS)('$rule', (row) => {
    const action = decide(spec(row.spec), row.obs, row.now);
    expect({ rule: action.rule, kind: action.kind }).toEqual({ rule: row.says ?? row.rule, kind: row.kind });
    // 7.1 (and 6.10, which hands the work to a fresh session) start a fresh conversation.
    if (row.rule === '7.1' || row.rule === '6.10')
      expect(action).toMatchObject({ fresh: expect.any(String) });
  });

  test('every rule has a row', () => {
    expect(ROWS.map((r) => r.rule).sort()).toEqual([...RULE_IDS].sort());
  });

  // The fix session's own deadline is 4.2 too.
  test('4.2 the fix session past verify_budget', () => {
    const s = spec({ verify: { ...VERIFY, budget: 900 } });
    expect(decide(s, observation({ session: running(FIX), outputAt: at('07:29') }), at('07:31')).rule).toBe(
      '4.2',
    );
  });
});
