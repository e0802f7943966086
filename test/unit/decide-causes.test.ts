import { describe, expect, test } from 'vitest';

import type { RunSpec } from '../../src/core/run/types.js';
import { CAUSES, type Cause } from '../../src/core/supervise/causes.js';
import { decide } from '../../src/core/supervise/decide.js';
import { legacyCause } from '../../src/core/supervise/legacy-cause.js';
import type { Action, Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_BUDGET,
  AFTER_END,
  afterLimit,
  at,
  BEFORE_END,
  BUDGET_END,
  cleanResult,
  crashes,
  done,
  ended,
  errorResult,
  exited,
  failed,
  hardLimit,
  observation,
  REPO,
  restarts,
  running,
  session,
  spec,
  waitLimit,
} from './builders.js';

// The cause of every outcome of decide, one row each; and the prose of each read back by
// legacyCause as a run recorded before codes is (the reasons are this version's own).

interface Case {
  name: string;
  spec?: Partial<RunSpec>;
  obs: Observation;
  now: Date;
  want: { kind: Action['kind']; cause: Cause; mode?: string; fresh?: { text: string } };
  /** What legacyCause reads from the reason, when not the cause itself. */
  legacy?: Cause;
}

const PER_MINUTE = errorResult('API Error: Request rejected (429) · per-minute rate limit', {
  apiErrorStatus: 429,
  apiErrorType: 'rate_limit_error',
});
const REFUSED = errorResult('Invalid API key · Fix external API key');
const crashed = (over = {}) => ended(session(), { exit: exited(1), ...over });
const SYNTHESIS = { n: 4, mode: 'synthesis' as const, startedAt: at('07:15') };

const CASES: Case[] = [
  {
    name: 'DONE, nothing alive',
    obs: observation({ sentinel: done('finished: REPORT.md written') }),
    now: AFTER_END,
    want: { kind: 'none', cause: 'report-written' },
  },
  {
    name: 'FAILED with a live agent',
    obs: observation({ sentinel: failed('circuit breaker: 5 restarts'), session: running(session()) }),
    now: BEFORE_END,
    want: { kind: 'cleanup', cause: 'leftover-agent' },
  },
  {
    name: 'paused',
    obs: observation({ paused: true }),
    now: BEFORE_END,
    want: { kind: 'none', cause: 'paused' },
  },
  {
    name: 'launch never started the first session',
    obs: observation({ session: null }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'first-session' },
  },
  {
    name: 'nothing ever started and the end time passed',
    obs: observation({ session: null }),
    now: AFTER_END,
    want: { kind: 'finish', cause: 'never-started' },
  },
  {
    name: 'an agent at work',
    obs: observation({ session: running(session()), outputAt: at('02:59') }),
    now: BEFORE_END,
    want: { kind: 'none', cause: 'working' },
  },
  {
    name: 'the wrapper between start and record',
    obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
    now: BEFORE_END,
    want: { kind: 'none', cause: 'starting' },
  },
  {
    name: 'a recorded session that never started its agent',
    obs: observation({ session: ended(session('resume', 2), { started: false }) }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'start-again' },
  },
  {
    name: 'paid extra usage while running',
    obs: observation({
      session: running(session(), {
        overage: { since: at('02:50'), resetsAt: at('05:00'), window: 'five_hour' },
      }),
      outputAt: at('02:59'),
    }),
    now: BEFORE_END,
    want: { kind: 'interrupt', cause: 'overage' },
  },
  {
    name: 'the synthesis past its budget',
    obs: observation({ session: running(SYNTHESIS), outputAt: at('07:44') }),
    now: AFTER_BUDGET,
    want: { kind: 'finish', cause: 'report-incomplete' },
  },
  {
    name: 'the synthesis on a prompt',
    obs: observation({ session: running(SYNTHESIS, { promptSeen: 'Press Enter to continue' }) }),
    now: AFTER_END,
    want: { kind: 'interrupt', cause: 'prompt' },
  },
  {
    name: 'the synthesis writing',
    obs: observation({ session: running(SYNTHESIS), outputAt: at('07:19') }),
    now: AFTER_END,
    want: { kind: 'none', cause: 'working' },
  },
  {
    name: 'an agent on a prompt',
    obs: observation({
      session: running(session(), { promptSeen: 'Do you trust the files in this folder?' }),
    }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'prompt' },
  },
  {
    name: 'an agent at the end time',
    obs: observation({ session: running(session()), outputAt: at('07:19') }),
    now: AFTER_END,
    want: { kind: 'interrupt', cause: 'end-time' },
  },
  {
    name: 'silent: first seen',
    obs: observation({ session: running(session()), outputAt: at('02:00') }),
    now: BEFORE_END,
    want: { kind: 'watch', cause: 'silent' },
  },
  {
    name: 'silent: watched',
    obs: observation({ session: running(session(), { staleSince: at('02:58') }), outputAt: at('02:00') }),
    now: BEFORE_END,
    want: { kind: 'none', cause: 'silent' },
  },
  {
    name: 'silent through the grace',
    obs: observation({ session: running(session(), { staleSince: at('02:30') }), outputAt: at('02:00') }),
    now: BEFORE_END,
    want: { kind: 'interrupt', cause: 'hang' },
    // Its words no longer begin with "hung:" (the cause and the line's flag say it): read as silence.
    legacy: 'silent',
  },
  {
    name: 'the synthesis wrote the report',
    obs: observation({ session: ended(SYNTHESIS, { exit: exited(0, at('07:30')) }), reportExists: true }),
    now: at('07:31'),
    want: { kind: 'finish', cause: 'report-written' },
  },
  {
    name: 'a usage limit',
    obs: observation({ session: crashed({ limit: waitLimit(at('05:00')) }) }),
    now: BEFORE_END,
    want: { kind: 'wait', cause: 'usage-limit' },
  },
  {
    name: 'paid extra usage waited out',
    obs: observation({
      session: crashed({
        limit: {
          ...waitLimit(
            at('05:00'),
            'the five_hour limit was reached and paid extra usage began (allow_overage is off)',
          ),
          overage: true,
        },
      }),
    }),
    now: BEFORE_END,
    want: { kind: 'wait', cause: 'overage' },
  },
  {
    name: 'a usage limit lifted',
    obs: observation({ session: crashed({ limit: waitLimit(at('03:00')) }) }),
    now: new Date(afterLimit(at('03:00')).getTime() + 1000),
    want: { kind: 'start', cause: 'limit-lifted' },
    legacy: 'limit-lifted',
  },
  {
    name: 'a limit that lifts after the budget: the report is late',
    obs: observation({
      session: ended(session(), { exit: exited(1, at('06:00')), limit: waitLimit(at('07:50')) }),
    }),
    now: at('06:01'),
    want: { kind: 'wait', cause: 'report-late' },
    legacy: 'usage-limit',
  },
  {
    name: 'a limit that lifts after late_report',
    obs: observation({
      session: ended(session(), { exit: exited(1, at('06:00')), limit: waitLimit(at('23:00')) }),
    }),
    now: at('06:01'),
    want: { kind: 'finish', cause: 'limit-outlasts' },
  },
  {
    name: 'a limit no wait lifts',
    obs: observation({ session: crashed({ limit: hardLimit('Your credit balance is too low') }) }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'hard-limit' },
  },
  ...(
    [
      ['account_on_hold', 'account-on-hold'],
      ['verification_required', 'verification-required'],
      ['oauth_org_not_allowed', 'oauth-not-allowed'],
      ['model_not_found', 'model-not-found'],
      ['cloud_credential_error', 'cloud-credentials'],
      ['sandbox_required_unavailable', 'sandbox-unavailable'],
    ] as const
  ).map(([errorType, cause]): Case => ({
    name: `blocked: ${errorType}`,
    obs: observation({ session: crashed({ errorType, result: errorResult('refused') }) }),
    now: BEFORE_END,
    want: { kind: 'finish', cause },
  })),
  {
    name: "a follow-up's fork the CLI refused: a fresh session, not a counted restart",
    obs: observation({
      session: ended(
        { ...session(), forked: true },
        {
          exit: exited(1),
          result: errorResult('No conversation found with session ID: 0b6f'),
          transcriptBytes: null,
        },
      ),
    }),
    now: BEFORE_END,
    want: {
      kind: 'start',
      cause: 'fork-refused',
      mode: 'retry',
      fresh: { text: 'the transcript is missing' },
    },
    legacy: 'unknown',
  },
  {
    name: 'a fork refused with no restarts allowed: no circuit breaker either',
    spec: { limits: { ...spec().limits, maxRestarts: 0 } },
    obs: observation({
      session: ended({ ...session(), forked: true }, { exit: exited(1), transcriptBytes: null }),
    }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'fork-refused', mode: 'retry' },
    legacy: 'unknown',
  },
  {
    name: 'a forked session that crashed after it ran: a crash like any',
    obs: observation({ session: ended({ ...session(), forked: true }, { exit: exited(1) }) }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'crash', mode: 'resume' },
  },
  {
    name: 'a refused login, the first',
    obs: observation({ session: crashed({ result: REFUSED, authFailures: 1 }) }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'login-retry' },
  },
  {
    name: 'a refused login, again',
    obs: observation({ session: crashed({ result: REFUSED, authFailures: 2 }) }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'refused-login' },
  },
  {
    name: 'the synthesis ended without a report: tried again',
    obs: observation({ session: ended(SYNTHESIS, { exit: exited(1, at('07:20')) }) }),
    now: at('07:21'),
    want: { kind: 'start', cause: 'synthesis-retry' },
  },
  {
    name: 'the synthesis ended without a report: backing off',
    obs: observation({
      session: ended(SYNTHESIS, { exit: exited(1, at('07:20')) }),
      restarts: restarts(['synthesis', 'synthesis']),
    }),
    now: at('07:20:01'),
    want: { kind: 'wait', cause: 'synthesis-retry' },
  },
  {
    name: 'the synthesis ended without a report past its budget',
    obs: observation({ session: ended(SYNTHESIS, { exit: exited(1, at('07:44')) }) }),
    now: BUDGET_END,
    want: { kind: 'finish', cause: 'no-report' },
  },
  {
    name: 'the agent finished the job',
    obs: observation({ session: crashed({ exit: exited(0) }), reportExists: true }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'report-written' },
  },
  {
    name: 'the spend cap, money left for the report',
    spec: { maxCost: 10 },
    obs: observation({ session: crashed({ costUsd: 9.2 }) }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'spend-cap' },
  },
  {
    name: 'the spend cap, nothing left',
    spec: { maxCost: 10 },
    obs: observation({ session: crashed({ costUsd: 10 }) }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'spend-cap' },
  },
  {
    name: 'an ended session at the end time',
    obs: observation({ session: crashed() }),
    now: AFTER_END,
    want: { kind: 'start', cause: 'end-time' },
  },
  {
    name: 'API trouble: backing off',
    obs: observation({ session: crashed({ exit: exited(1, at('02:59')), result: PER_MINUTE }) }),
    now: at('02:59:05'),
    want: { kind: 'wait', cause: 'api-trouble' },
  },
  {
    name: 'API trouble past transient_max',
    obs: observation({
      session: crashed({
        result: PER_MINUTE,
        apiTroubles: { count: 9, since: new Date('2026-11-21T23:20:00Z') },
      }),
    }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'api-trouble' },
  },
  {
    name: 'the circuit breaker',
    obs: observation({ session: crashed(), restarts: restarts(crashes(5)) }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'breaker' },
  },
  {
    name: 'a crash: resumed',
    obs: observation({ session: crashed() }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'crash' },
  },
  {
    name: 'a crash: backing off',
    obs: observation({
      session: ended(
        { n: 3, mode: 'resume', startedAt: at('02:59:30') },
        { exit: exited(1, at('02:59:50')) },
      ),
      restarts: restarts(crashes(2), { from: at('02:58'), uptime: 20 }),
    }),
    now: at('02:59:55'),
    want: { kind: 'wait', cause: 'backoff' },
  },
  {
    name: 'stopped as hung: resumed',
    obs: observation({ session: crashed({ exit: exited(0, at('02:35:01')), hung: true }) }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'hang' },
  },
  {
    name: 'a clean exit with time left',
    obs: observation({
      session: crashed({ exit: exited(0, at('02:00')), result: cleanResult('done for now') }),
    }),
    now: BEFORE_END,
    want: { kind: 'start', cause: 'time-left' },
  },
  {
    name: 'the worktree is gone',
    spec: { repo: REPO },
    obs: observation({ session: crashed(), worktreeGone: true }),
    now: BEFORE_END,
    want: { kind: 'finish', cause: 'worktree-gone' },
  },
];

describe('the cause of each decision', () => {
  test.each(CASES)('$name → $want.kind, $want.cause', ({ spec: over, obs, now, want }) => {
    expect(decide(spec(over), obs, now)).toMatchObject(want);
  });

  // Runs recorded before codes: this version's prose read back gives the same cause.
  test.each(CASES)('$name: its reason read by legacyCause', ({ spec: over, obs, now, want, legacy }) => {
    const action = decide(spec(over), obs, now);
    expect(legacyCause(action.reason)).toBe(legacy ?? want.cause);
  });

  test('every cause has its one-line meaning', () => {
    for (const [cause, meaning] of Object.entries(CAUSES)) {
      expect(cause).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
      expect(meaning).not.toMatch(/\n/);
    }
  });
});
