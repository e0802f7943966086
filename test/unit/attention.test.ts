import { describe, expect, test } from 'vitest';

import {
  attention,
  needWords,
  type Attention,
  type AttentionFacts,
} from '../../src/core/supervise/attention.js';
import { parseCause, type Cause } from '../../src/core/supervise/causes.js';
import { causeOf, legacyCause } from '../../src/core/supervise/legacy-cause.js';

// What needs the person, from codes; and the reasons of runs recorded before codes, read back.

describe('attention', () => {
  test.each<{ name: string; cause: Cause; facts: AttentionFacts; want: Attention | null }>([
    { name: 'a running agent', cause: 'working', facts: { state: 'running' }, want: null },
    { name: 'a run backing off', cause: 'backoff', facts: { state: 'waiting' }, want: null },
    { name: 'a paused run', cause: 'paused', facts: { state: 'paused' }, want: null },
    {
      name: 'done with its report',
      cause: 'report-written',
      facts: { state: 'done', report: true },
      want: null,
    },
    {
      name: 'done, its report since removed',
      cause: 'report-written',
      facts: { state: 'done', report: false },
      want: { need: 'no-report', only: false },
    },
    {
      name: 'done, no report',
      cause: 'no-report',
      facts: { state: 'done', report: false },
      want: { need: 'no-report', only: false },
    },
    {
      name: 'done, report unknown (an older cached row): judged by the cause',
      cause: 'limit-outlasts',
      facts: { state: 'done' },
      want: { need: 'no-report', only: false },
    },
    {
      name: 'done, report unknown, written',
      cause: 'report-written',
      facts: { state: 'done' },
      want: null,
    },
    {
      name: 'an incomplete report that exists',
      cause: 'report-incomplete',
      facts: { state: 'done', report: true },
      want: null,
    },
    { name: 'stopped by the person', cause: 'stopped', facts: { state: 'done', report: false }, want: null },
    {
      name: 'the circuit breaker',
      cause: 'breaker',
      facts: { state: 'failed' },
      want: { need: 'failed', only: false },
    },
    {
      name: 'the spend cap',
      cause: 'spend-cap',
      facts: { state: 'failed' },
      want: { need: 'failed', only: false },
    },
    ...(
      [
        'prompt',
        'refused-login',
        'hard-limit',
        'account-on-hold',
        'verification-required',
        'oauth-not-allowed',
        'model-not-found',
        'cloud-credentials',
        'sandbox-unavailable',
      ] as const
    ).map((cause) => ({
      name: `failed, only the person can clear it: ${cause}`,
      cause,
      facts: { state: 'failed' as const },
      want: { need: 'failed' as const, only: true },
    })),
    {
      name: 'waiting out paid extra usage',
      cause: 'overage',
      facts: { state: 'waiting' },
      want: { need: 'overage', only: false },
    },
    {
      name: 'running on paid extra usage it allows',
      cause: 'working',
      facts: { state: 'running', onOverage: true },
      want: { need: 'overage', only: false },
    },
    {
      name: 'paid extra usage on a finished run is no news',
      cause: 'report-written',
      facts: { state: 'done', report: true, onOverage: true },
      want: null,
    },
    {
      name: 'notifications failing',
      cause: 'report-written',
      facts: { state: 'done', report: true, notifyFailing: true },
      want: { need: 'notifications', only: false },
    },
    {
      name: 'a file that cannot be used comes first',
      cause: 'unknown',
      facts: { state: 'failed', problem: 'run.yaml is corrupt' },
      want: { need: 'broken-file', only: true },
    },
  ])('$name', ({ cause, facts, want }) => {
    expect(attention(cause, facts)).toEqual(want);
  });

  test.each([
    { need: 'failed' as const, reason: 'circuit breaker: 5 restarts', want: 'circuit breaker: 5 restarts' },
    { need: 'failed' as const, reason: '', want: 'failed' },
    {
      need: 'no-report' as const,
      reason: 'no report: the synthesis ended',
      cause: 'no-report' as const,
      want: 'no report: the synthesis ended',
    },
    {
      need: 'no-report' as const,
      reason: 'finished',
      cause: 'stopped' as const,
      want: 'no report (finished)',
    },
    { need: 'overage' as const, reason: 'waiting: …', want: 'on paid extra usage' },
    { need: 'notifications' as const, reason: '', want: 'notifications failing' },
  ])('needWords($need, "$reason") → $want', (row) => {
    const { need, reason, want } = row;
    expect(needWords(need, reason, undefined, '<run>', 'cause' in row ? row.cause : null)).toBe(want);
  });
});

/** Reasons as the released version wrote them (its ended.ts, decide.ts, hang.ts, stop, finish). */
const RELEASED: { reason: string; want: Cause }[] = [
  { reason: 'finished: REPORT.md written', want: 'report-written' },
  { reason: 'finished: REPORT.md written by the synthesis', want: 'report-written' },
  {
    reason: 'report incomplete: the synthesis was still running when its budget ran out',
    want: 'report-incomplete',
  },
  { reason: 'no report: the synthesis ended without writing REPORT.md (exit 1)', want: 'no-report' },
  { reason: 'no report: the end time passed before the agent ever started', want: 'never-started' },
  {
    reason: 'no report: seven_day limit; it lifts only after late_report (6h after the end time)',
    want: 'limit-outlasts',
  },
  { reason: 'stopped by user', want: 'stopped' },
  { reason: 'finished early by user', want: 'finished-early' },
  { reason: 'circuit breaker: 5 restarts, last exit 1', want: 'breaker' },
  {
    reason: 'circuit breaker: no restarts allowed (max_restarts 0), last exit 1: TypeError: x is undefined',
    want: 'breaker',
  },
  { reason: 'spend cap: $9.20 of $10.00 spent', want: 'spend-cap' },
  { reason: 'spend cap: $10.00 of $10.00 spent, nothing left for the report', want: 'spend-cap' },
  {
    reason:
      'authentication failed 2 times in a row (Invalid API key · Fix external API key); for unattended ' +
      'runs put a long-lived token from `claude setup-token` in CLAUDE_CODE_OAUTH_TOKEN',
    want: 'refused-login',
  },
  {
    reason: 'authentication failed (Invalid API key · Fix external API key); trying once more',
    want: 'login-retry',
  },
  {
    reason: 'the agent is waiting for input nobody will give: "Do you trust the files in this folder?"',
    want: 'prompt',
  },
  {
    reason: 'the synthesis is waiting for input nobody will give: "Press Enter to continue"',
    want: 'prompt',
  },
  { reason: 'usage limit that waiting will not lift: Your credit balance is too low', want: 'hard-limit' },
  {
    reason:
      'the account is on hold (account_on_hold: Your account is on hold); no restart can fix that: sign ' +
      'in at claude.ai to see why and lift the hold, then launch again',
    want: 'account-on-hold',
  },
  {
    reason:
      'the model is not available to this account or deployment (model_not_found); no restart can fix ' +
      'that: choose a model it has (`--model`, the `model` setting) or a `fallback_model`, then launch again',
    want: 'model-not-found',
  },
  {
    reason:
      'the API kept failing for 2h 5m, longer than transient_max (2h); last 529 overloaded_error (exit 1): ' +
      'API Error: 529 overloaded_error',
    want: 'api-trouble',
  },
  {
    reason:
      'the API failed (429 rate_limit_error, exit 1): API Error: Request rejected (429); not counted as ' +
      'a restart; backing off 1m',
    want: 'api-trouble',
  },
  {
    reason:
      'the worktree /home/me/wt is gone (removed outside overnight), so no session can start; what was ' +
      'committed is on the branch overnight/x',
    want: 'worktree-gone',
  },
  { reason: 'DONE is present but an agent is still running', want: 'leftover-agent' },
  { reason: 'hung: no output for 35m', want: 'hang' },
  { reason: 'no output for 30m; stopping it if still silent in 5m', want: 'silent' },
  { reason: 'silent for 32m; watching', want: 'silent' },
  { reason: 'end time reached: stopping exploration for the synthesis', want: 'end-time' },
  { reason: 'end time reached (exit 0)', want: 'end-time' },
  { reason: 'usage limit lifted (five_hour limit)', want: 'limit-lifted' },
  {
    reason:
      'paid extra usage: the five_hour limit was reached and allow_overage is off; stopping until it resets',
    want: 'overage',
  },
  {
    reason: 'the five_hour limit was reached and paid extra usage began (allow_overage is off)',
    want: 'overage',
  },
  { reason: 'five_hour limit', want: 'usage-limit' },
  { reason: "Claude AI usage limit reached. You've hit your limit · resets 3am (UTC)", want: 'usage-limit' },
  { reason: 'the synthesis ended without REPORT.md (exit 1); backing off 30s', want: 'synthesis-retry' },
  { reason: 'the synthesis ended without REPORT.md (exit 1); trying again (2/10)', want: 'synthesis-retry' },
  { reason: 'agent ended (exit 1); backing off 30s', want: 'backoff' },
  { reason: 'clean exit after 2m, time left; backing off 30s, cut short by the end time', want: 'backoff' },
  { reason: 'clean exit after 2h 10m, time left', want: 'time-left' },
  { reason: 'max-turns after 1h, time left', want: 'time-left' },
  { reason: 'agent ended (exit 1)', want: 'crash' },
  { reason: 'agent ended (exit 1); starting a fresh session: the transcript is missing', want: 'crash' },
  { reason: 'killed by SIGKILL (exit 137), perhaps out of memory', want: 'crash' },
  { reason: 'interrupted without a result (exit 0)', want: 'crash' },
  { reason: 'stopped as hung (exit 0)', want: 'hang' },
  { reason: 'first session was never started', want: 'first-session' },
  { reason: 'session 2 never started its agent', want: 'start-again' },
  { reason: 'agent running', want: 'working' },
  { reason: 'writing the report', want: 'working' },
  { reason: 'agent starting or just ended', want: 'starting' },
  { reason: 'paused', want: 'paused' },
  // status rows cached before codes say a wait with its times
  { reason: 'waiting: paid extra usage: the five_hour limit was reached', want: 'overage' },
  { reason: 'something a later version says', want: 'unknown' },
];

describe('legacyCause: reasons from before cause codes', () => {
  test.each(RELEASED)('"$reason" → $want', ({ reason, want }) => {
    expect(legacyCause(reason)).toBe(want);
  });

  test.each<{ name: string; record: { cause?: unknown; reason?: unknown }; want: Cause }>([
    {
      name: 'a valid code wins over the prose',
      record: { cause: 'breaker', reason: 'stopped by user' },
      want: 'breaker',
    },
    { name: 'no code: the prose', record: { reason: 'stopped by user' }, want: 'stopped' },
    {
      name: 'a code not in the list: the prose',
      record: { cause: 'rm -rf', reason: 'hung: x' },
      want: 'hang',
    },
    { name: 'a code of the wrong type', record: { cause: 7, reason: 'paused' }, want: 'paused' },
    { name: 'nothing at all', record: {}, want: 'unknown' },
  ])('causeOf: $name', ({ record, want }) => {
    expect(causeOf(record)).toBe(want);
  });

  test('parseCause takes only names from the list', () => {
    expect(parseCause('spend-cap')).toBe('spend-cap');
    expect(parseCause('toString')).toBeNull();
    expect(parseCause('__proto__')).toBeNull();
    expect(parseCause(null)).toBeNull();
  });
});
