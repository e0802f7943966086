import { describe, expect, test } from 'vitest';

import type { RestartEntry, SessionMode } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { AUTH_FIX } from '../../src/core/supervise/ended.js';
import type { Action, Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_END,
  BEFORE_END,
  crashes,
  exited,
  obs,
  restarts,
  session,
  spec,
  type FlatObservation,
} from './builders.js';

// decide's rules for a night that goes wrong: spend caps, quick exits, limits, hangs, credentials,
// fresh sessions, named ends and a watched synthesis.

describe('spend cap (max_cost)', () => {
  test.each<[string, number | null, number, Action['kind'], string]>([
    ['no cap: a crash resumes whatever was spent', null, 100, 'start', 'agent ended (exit 1)'],
    ['under 90 % of the cap: resume', 10, 8.5, 'start', 'agent ended (exit 1)'],
    ['90 % spent: the rest goes to the report', 10, 9.2, 'start', 'spend cap: $9.20 of $10.00 spent'],
    [
      'all spent: nothing left for a report',
      10,
      10,
      'finish',
      'spend cap: $10.00 of $10.00 spent, nothing left for the report',
    ],
  ])('%s', (_name, maxCost, costUsd, kind, reason) => {
    const action = decide(spec({ maxCost }), obs({ exit: exited(1), costUsd }), BEFORE_END);
    expect(action.kind).toBe(kind);
    expect(action.reason).toBe(reason);
    if (kind === 'start' && maxCost !== null && costUsd >= 9)
      expect(action).toMatchObject({ mode: 'synthesis' });
    if (kind === 'finish') expect(action).toMatchObject({ sentinel: 'FAILED' });
  });
});

describe('time left: continue after a clean exit, back off after quick failures', () => {
  const CLEAN = { isError: false, subtype: 'success', text: 'done for now' };
  const startedAt = new Date('2026-11-22T02:58:00Z');
  const quick = (mode: SessionMode, n: number): RestartEntry[] =>
    Array.from({ length: n }, (_, i) => ({
      at: new Date(Date.UTC(2026, 10, 22, 2, 50 + i)),
      mode,
      exit: 1,
      uptime: 5,
      reason: 'x',
    }));

  test('a clean exit after a long session continues at once, not counted as a restart', () => {
    const action = decide(spec(), obs({ exit: exited(0), result: CLEAN }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue', exit: 0 });
    expect(action.reason).toMatch(/^clean exit after 3h44m, time left$/);
  });

  test('an error result with exit 0 is not clean: a crash restart', () => {
    const action = decide(
      spec(),
      obs({ exit: exited(0), result: { isError: true, subtype: 'success', text: 'API Error: 500' } }),
      BEFORE_END,
    );
    expect(action).toMatchObject({ kind: 'start', mode: 'resume' });
  });

  test('a clean exit after the breaker is full still continues (continuations are not crashes)', () => {
    const action = decide(
      spec(),
      obs({ exit: exited(0), result: CLEAN, restarts: restarts(...crashes(5)) }),
      BEFORE_END,
    );
    expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
  });

  test('a second quick crash waits for the backoff, then resumes', () => {
    const o = obs({
      session: { n: 3, mode: 'resume', startedAt },
      exit: exited(1),
      restarts: quick('resume', 1),
    });
    const waiting = decide(spec(), o, new Date('2026-11-22T02:59:10Z'));
    expect(waiting).toMatchObject({ kind: 'wait', until: new Date('2026-11-22T02:59:30Z') });
    expect(waiting.reason).toBe('agent ended (exit 1); backing off 30s');
    expect(decide(spec(), o, new Date('2026-11-22T02:59:30Z'))).toMatchObject({
      kind: 'start',
      mode: 'resume',
      uptime: 60,
    });
  });

  test('a clean exit shorter than min_uptime backs off like a crash', () => {
    const o = obs({
      session: { n: 3, mode: 'continue', startedAt: new Date('2026-11-22T02:58:50Z') },
      exit: exited(0),
      result: CLEAN,
      restarts: quick('continue', 2),
    });
    expect(decide(spec(), o, new Date('2026-11-22T02:59:01Z'))).toMatchObject({
      kind: 'wait',
      until: new Date('2026-11-22T03:00:00Z'),
    });
  });

  test('the breaker reason quotes the last error', () => {
    const action = decide(
      spec(),
      obs({
        exit: exited(1),
        result: { isError: true, subtype: 'success', text: 'API Error: 529\nOverloaded' },
        restarts: restarts(...crashes(5)),
      }),
      BEFORE_END,
    );
    expect(action.reason).toBe('circuit breaker: 5 restarts, last exit 1: API Error: 529 Overloaded');
  });
});

test("a crash's reason carries the agent's own error text", () => {
  const action = decide(
    spec(),
    obs({
      exit: exited(1),
      result: { isError: true, subtype: 'success', text: 'API Error: Connection refused' },
    }),
    BEFORE_END,
  );
  expect(action).toMatchObject({
    kind: 'start',
    mode: 'resume',
    reason: 'agent ended (exit 1): API Error: Connection refused',
  });
});

describe('usage limits', () => {
  const at = (iso: string) => new Date(iso);
  const ended = (over: Partial<FlatObservation> = {}) =>
    obs({ exit: { code: 1, at: at('2026-11-22T02:00:00Z') }, ...over });
  const waitFor = (resetsAt: Date | null, what = 'five_hour limit', over: Partial<FlatObservation> = {}) =>
    ended({ limit: { kind: 'wait' as const, resetsAt, what }, ...over });

  test.each<[string, Observation, Date, Partial<Action> & { kind: Action['kind'] }]>([
    [
      'before the reset + margin: wait, not a crash',
      waitFor(at('2026-11-22T03:00:00Z')),
      at('2026-11-22T02:01:00Z'),
      { kind: 'wait', until: at('2026-11-22T03:05:00Z') },
    ],
    [
      'after it: continue the same conversation, not counted',
      waitFor(at('2026-11-22T03:00:00Z')),
      at('2026-11-22T03:05:00Z'),
      { kind: 'start', mode: 'continue' },
    ],
    [
      'no readable time: wait the default hour + margin',
      waitFor(null, "You've hit your limit"),
      at('2026-11-22T02:30:00Z'),
      { kind: 'wait', until: at('2026-11-22T03:05:00Z') },
    ],
    [
      'a reset after the end time: the synthesis starts when it lifts',
      waitFor(at('2026-11-22T07:20:00Z')),
      at('2026-11-22T07:25:00Z'),
      { kind: 'start', mode: 'synthesis' },
    ],
    [
      'lifting only after the synthesis budget: done, no report',
      waitFor(at('2026-11-22T09:00:00Z')),
      at('2026-11-22T02:01:00Z'),
      { kind: 'finish', sentinel: 'DONE' },
    ],
    [
      'a limit no wait lifts: failed, saying so',
      ended({ limit: { kind: 'hard', what: "You've hit your org's monthly usage limit" } }),
      at('2026-11-22T02:01:00Z'),
      {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: "usage limit that waiting will not lift: You've hit your org's monthly usage limit",
      },
    ],
    [
      'the breaker does not count limit waits',
      { ...waitFor(at('2026-11-22T03:00:00Z')), restarts: restarts(...crashes(5)) },
      at('2026-11-22T03:06:00Z'),
      { kind: 'start', mode: 'continue' },
    ],
  ])('%s', (_name, o, now, want) => {
    expect(decide(spec(), o, now)).toMatchObject(want);
  });

  test('a synthesis stopped by a limit waits and is tried again', () => {
    const o = waitFor(at('2026-11-22T07:30:00Z'), undefined, { session: session('synthesis', 3) });
    expect(decide(spec(), o, at('2026-11-22T07:21:00Z'))).toMatchObject({ kind: 'wait' });
    expect(decide(spec(), o, at('2026-11-22T07:36:00Z'))).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });
});

describe('hangs (stale_after 30m, hang_grace 5m)', () => {
  const at = (iso: string) => new Date(iso);
  const alive = (over: Partial<FlatObservation> = {}) =>
    obs({ agentAlive: true, wrapperAlive: true, outputAt: at('2026-11-22T02:00:00Z'), ...over });

  test.each<[string, Observation, Date, Partial<Action> & { kind: Action['kind'] }]>([
    [
      'output 29 minutes ago: nothing',
      alive(),
      at('2026-11-22T02:29:00Z'),
      { kind: 'none', reason: 'agent running' },
    ],
    [
      'silent 30 minutes: watched, the time kept on disk',
      alive(),
      at('2026-11-22T02:30:00Z'),
      { kind: 'watch', reason: 'no output for 30m; stopping it if still silent in 5m' },
    ],
    [
      'watched, within the grace: nothing',
      alive({ staleSince: at('2026-11-22T02:30:00Z') }),
      at('2026-11-22T02:34:00Z'),
      { kind: 'none' },
    ],
    [
      'still silent after the grace: stopped as hung',
      alive({ staleSince: at('2026-11-22T02:30:00Z') }),
      at('2026-11-22T02:35:00Z'),
      { kind: 'interrupt', hung: true, reason: 'hung: no output for 35m' },
    ],
    [
      'fresh output since the mark: the mark no longer counts',
      alive({ staleSince: at('2026-11-22T01:00:00Z') }),
      at('2026-11-22T02:31:00Z'),
      { kind: 'watch' },
    ],
  ])('%s', (_name, o, now, want) => {
    expect(decide(spec(), o, now)).toMatchObject(want);
  });

  test('a session stopped as hung is resumed as a crash, saying so', () => {
    const action = decide(
      spec(),
      obs({ exit: { code: 0, at: at('2026-11-22T02:35:01Z') }, hung: true }),
      at('2026-11-22T02:35:02Z'),
    );
    expect(action).toMatchObject({ kind: 'start', mode: 'resume', reason: 'stopped as hung (exit 0)' });
  });
});

describe('refused credentials (counted on their own)', () => {
  const refused = { isError: true, subtype: 'success', text: 'Invalid API key · Fix external API key' };
  test('the first is retried without using a crash restart', () => {
    expect(
      decide(
        spec(),
        obs({ exit: exited(1), result: refused, authFailures: 1, restarts: restarts(...crashes(5)) }),
        BEFORE_END,
      ),
    ).toMatchObject({ kind: 'start', mode: 'retry' });
  });
  test('the second in a row fails the run, naming the fix', () => {
    const action = decide(spec(), obs({ exit: exited(1), result: refused, authFailures: 2 }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'finish', sentinel: 'FAILED' });
    expect(action.reason).toBe(
      `authentication failed 2 times in a row (Invalid API key · Fix external API key); ${AUTH_FIX}`,
    );
    expect(action.reason).toMatch(/claude setup-token.*CLAUDE_CODE_OAUTH_TOKEN.*ANTHROPIC_API_KEY/);
  });
});

describe('escalation to a fresh session', () => {
  test.each<[string, Partial<FlatObservation>, string | undefined]>([
    ['a transcript to resume: resumed', {}, undefined],
    [
      'no transcript: never resumed (that would start an empty conversation)',
      { transcriptBytes: null },
      'the transcript is missing',
    ],
    [
      'a transcript over max_transcript',
      { transcriptBytes: 300 * 1024 * 1024 },
      'the transcript is 300 MB, over max_transcript (256 MB)',
    ],
    [
      'three failed resumes in a row without output',
      { failedResumes: 3 },
      '3 resumes in a row failed without output',
    ],
  ])('%s', (_name, over, fresh) => {
    const action = decide(spec(), obs({ exit: exited(1), ...over }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'resume' });
    expect((action as { fresh?: string }).fresh).toBe(fresh);
    if (fresh) expect(action.reason).toBe(`agent ended (exit 1); starting a fresh session: ${fresh}`);
  });

  test('the synthesis, too, starts fresh when the transcript is gone', () => {
    expect(decide(spec(), obs({ exit: exited(0), transcriptBytes: null }), AFTER_END)).toMatchObject({
      kind: 'start',
      mode: 'synthesis',
      fresh: 'the transcript is missing',
    });
  });
});

describe('named ends', () => {
  test('max turns is a normal stop: continued, not counted', () => {
    const action = decide(
      spec(),
      obs({
        exit: exited(1),
        result: { isError: true, subtype: 'error_max_turns', text: '' },
        restarts: restarts(...crashes(5)),
      }),
      BEFORE_END,
    );
    expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
    expect(action.reason).toMatch(/^max-turns after 3h44m, time left$/);
  });
  test('overloaded is a crash that says so', () => {
    const action = decide(
      spec(),
      obs({
        exit: exited(1),
        result: { isError: true, subtype: 'success', text: 'API Error: 529 Overloaded', apiErrorStatus: 529 },
      }),
      BEFORE_END,
    );
    expect(action).toMatchObject({
      kind: 'start',
      mode: 'resume',
      reason: 'the API was overloaded (exit 1): API Error: 529 Overloaded',
    });
  });
  test('exit 0 without a result is an interrupted session, resumed as a crash', () => {
    expect(decide(spec(), obs({ exit: exited(0) }), BEFORE_END)).toMatchObject({
      kind: 'start',
      mode: 'resume',
      reason: 'interrupted (no result) (exit 0)',
    });
  });
});

test('an agent waiting for input nobody will give fails the run at once, stopping it', () => {
  const action = decide(
    spec(),
    obs({
      agentAlive: true,
      wrapperAlive: true,
      outputAt: BEFORE_END,
      promptSeen: 'Do you trust the files in this folder?',
    }),
    BEFORE_END,
  );
  expect(action).toEqual({
    kind: 'finish',
    sentinel: 'FAILED',
    stopAgent: true,
    reason: 'the agent is waiting for input nobody will give: "Do you trust the files in this folder?"',
  });
});

test('synthesis tries wait for the backoff after the first', () => {
  const o = obs({
    session: session('synthesis', 3),
    exit: { code: 1, at: new Date('2026-11-22T07:20:00Z') },
    restarts: restarts('synthesis', 'synthesis'),
  });
  expect(decide(spec(), o, new Date('2026-11-22T07:20:10Z'))).toMatchObject({
    kind: 'wait',
    until: new Date('2026-11-22T07:20:30Z'),
  });
  expect(decide(spec(), o, new Date('2026-11-22T07:20:30Z'))).toMatchObject({
    kind: 'start',
    mode: 'synthesis',
    reason: 'the synthesis ended without REPORT.md (exit 1); trying again (3/10)',
  });
});

describe('a synthesis is watched too', () => {
  const live = (over: Partial<FlatObservation>) =>
    obs({ session: session('synthesis', 2), agentAlive: true, wrapperAlive: true, ...over });
  test('silent past stale_after: marked; then stopped as hung, to be tried again', () => {
    expect(
      decide(spec(), live({ outputAt: new Date('2026-11-22T07:16:00Z') }), new Date('2026-11-22T07:46:00Z')),
    ).toMatchObject({ kind: 'finish' });
    const s = spec({ limits: { ...spec().limits, synthesisBudget: 7200 } });
    expect(
      decide(s, live({ outputAt: new Date('2026-11-22T07:16:00Z') }), new Date('2026-11-22T07:46:00Z')),
    ).toMatchObject({ kind: 'watch' });
    expect(
      decide(
        s,
        live({ outputAt: new Date('2026-11-22T07:16:00Z'), staleSince: new Date('2026-11-22T07:46:00Z') }),
        new Date('2026-11-22T07:51:00Z'),
      ),
    ).toMatchObject({ kind: 'interrupt', hung: true });
  });
  test('waiting for input: stopped, to be tried again', () => {
    expect(
      decide(spec(), live({ outputAt: AFTER_END, promptSeen: 'Press Enter to continue' }), AFTER_END),
    ).toMatchObject({
      kind: 'interrupt',
      reason: 'the synthesis is waiting for input nobody will give: "Press Enter to continue"',
    });
  });
});

test('a session that hit its budget cap (max-budget) continues like a clean exit', () => {
  const action = decide(
    spec(),
    obs({
      exit: exited(1),
      result: { isError: true, subtype: 'error_max_budget_usd', text: '' },
      restarts: restarts(...crashes(5)),
    }),
    BEFORE_END,
  );
  expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
});
