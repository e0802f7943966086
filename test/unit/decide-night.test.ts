import { describe, expect, test } from 'vitest';

import type { RunSpec, SessionMode } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { AUTH_FIX } from '../../src/core/supervise/ended.js';
import type { Limit } from '../../src/core/supervise/limits.js';
import type { Action, AgentNotRunning, Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_END,
  afterLimit,
  at,
  BEFORE_END,
  cleanResult,
  crashes,
  ended,
  errorResult,
  exited,
  hardLimit,
  observation,
  restarts,
  running,
  session,
  spec,
  waitLimit,
} from './builders.js';

// decide's rules for a night that goes wrong: spend caps, quick exits, limits, hangs, credentials,
// fresh sessions, named ends and a watched synthesis.

type Want = Partial<Action> & { kind: Action['kind'] };

describe('spend cap (max_cost)', () => {
  test.each<{ name: string; maxCost: RunSpec['maxCost']; costUsd: number; want: Want }>([
    {
      name: 'no cap: a crash resumes whatever was spent',
      maxCost: null,
      costUsd: 100,
      want: { kind: 'start', reason: 'agent ended (exit 1)' },
    },
    {
      name: 'under 90 % of the cap: resume',
      maxCost: 10,
      costUsd: 8.5,
      want: { kind: 'start', reason: 'agent ended (exit 1)' },
    },
    {
      name: '90 % spent: the rest goes to the report',
      maxCost: 10,
      costUsd: 9.2,
      want: { kind: 'start', mode: 'synthesis', reason: 'spend cap: $9.20 of $10.00 spent' },
    },
    {
      name: 'all spent: nothing left for a report',
      maxCost: 10,
      costUsd: 10,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: 'spend cap: $10.00 of $10.00 spent, nothing left for the report',
      },
    },
  ])('$name → $want.kind', ({ maxCost, costUsd, want }) => {
    const obs = observation({ session: ended(session(), { exit: exited(1), costUsd }) });
    expect(decide(spec({ maxCost }), obs, BEFORE_END)).toMatchObject(want);
  });
});

describe('time left: continue after a clean exit, back off after quick failures', () => {
  const CLEAN = cleanResult('done for now');
  const startedAt = at('02:58');
  /** n quick exits (5 s each) of `mode`, a minute apart from 02:50. */
  const quick = (mode: SessionMode, n: number) =>
    restarts(Array<SessionMode>(n).fill(mode), { from: at('02:50'), uptime: 5, reason: 'x' });

  test('a clean exit after a long session continues at once, not counted as a restart', () => {
    const obs = observation({ session: ended(session(), { exit: exited(0), result: CLEAN }) });
    const action = decide(spec(), obs, BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue', exit: 0 });
    expect(action.reason).toMatch(/^clean exit after 3h44m, time left$/);
  });

  test('an error result with exit 0 is not clean: a crash restart', () => {
    const obs = observation({
      session: ended(session(), { exit: exited(0), result: errorResult('API Error: 500') }),
    });
    expect(decide(spec(), obs, BEFORE_END)).toMatchObject({ kind: 'start', mode: 'resume' });
  });

  test('a clean exit after the breaker is full still continues (continuations are not crashes)', () => {
    const obs = observation({
      session: ended(session(), { exit: exited(0), result: CLEAN }),
      restarts: restarts(crashes(5)),
    });
    expect(decide(spec(), obs, BEFORE_END)).toMatchObject({ kind: 'start', mode: 'continue' });
  });

  test('a second quick crash waits for the backoff, then resumes', () => {
    const obs = observation({
      session: ended({ n: 3, mode: 'resume', startedAt }, { exit: exited(1) }),
      restarts: quick('resume', 1),
    });
    const waiting = decide(spec(), obs, at('02:59:10'));
    expect(waiting).toMatchObject({ kind: 'wait', until: at('02:59:30') });
    expect(waiting.reason).toBe('agent ended (exit 1); backing off 30s');
    expect(decide(spec(), obs, at('02:59:30'))).toMatchObject({
      kind: 'start',
      mode: 'resume',
      uptime: 60,
    });
  });

  test('a clean exit shorter than min_uptime backs off like a crash', () => {
    const obs = observation({
      session: ended(
        { n: 3, mode: 'continue', startedAt: at('02:58:50') },
        { exit: exited(0), result: CLEAN },
      ),
      restarts: quick('continue', 2),
    });
    expect(decide(spec(), obs, at('02:59:01'))).toMatchObject({ kind: 'wait', until: at('03:00') });
  });

  test('the breaker reason quotes the last error', () => {
    const obs = observation({
      session: ended(session(), { exit: exited(1), result: errorResult('Error: ENOENT\nat open') }),
      restarts: restarts(crashes(5)),
    });
    expect(decide(spec(), obs, BEFORE_END).reason).toBe(
      'circuit breaker: 5 restarts, last exit 1: Error: ENOENT at open',
    );
  });
});

test("a crash's reason carries the agent's own error text", () => {
  const obs = observation({
    session: ended(session(), { exit: exited(1), result: errorResult('API Error: Connection refused') }),
  });
  expect(decide(spec(), obs, BEFORE_END)).toMatchObject({
    kind: 'start',
    mode: 'resume',
    reason: 'agent ended (exit 1): API Error: Connection refused',
  });
});

describe('usage limits', () => {
  /** The first session, ended at 02:00 on `limit`. */
  const endedOn = (limit: Limit) => ended(session(), { exit: exited(1, at('02:00')), limit });

  test.each<{ name: string; obs: Observation; now: Date; want: Want }>([
    {
      name: 'before the reset + margin: wait, not a crash',
      obs: observation({ session: endedOn(waitLimit(at('03:00'))) }),
      now: at('02:01'),
      want: { kind: 'wait', until: afterLimit(at('03:00')) },
    },
    {
      name: 'after it: continue the same conversation, not counted',
      obs: observation({ session: endedOn(waitLimit(at('03:00'))) }),
      now: afterLimit(at('03:00')),
      want: { kind: 'start', mode: 'continue' },
    },
    {
      name: 'no readable time: wait the default hour + margin',
      obs: observation({ session: endedOn(waitLimit(null, "You've hit your limit")) }),
      now: at('02:30'),
      want: { kind: 'wait', until: afterLimit(at('03:00')) },
    },
    {
      name: 'a reset after the end time: the synthesis starts when it lifts',
      obs: observation({ session: endedOn(waitLimit(at('07:20'))) }),
      now: afterLimit(at('07:20')),
      want: { kind: 'start', mode: 'synthesis' },
    },
    {
      name: 'lifting only after the synthesis budget: the report comes late, in state waiting',
      obs: observation({ session: endedOn(waitLimit(at('09:00'))) }),
      now: at('02:01'),
      want: { kind: 'wait', until: afterLimit(at('09:00')), resetsAt: at('09:00'), late: true },
    },
    {
      name: 'lifting only after late_report (6h after the end): done, no report',
      obs: observation({ session: endedOn(waitLimit(at('13:15'))) }),
      now: at('02:01'),
      want: { kind: 'finish', sentinel: 'DONE' },
    },
    {
      name: 'a limit no wait lifts: failed, saying so',
      obs: observation({ session: endedOn(hardLimit("You've hit your org's monthly usage limit")) }),
      now: at('02:01'),
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: "usage limit that waiting will not lift: You've hit your org's monthly usage limit",
      },
    },
    {
      name: 'the breaker does not count limit waits',
      obs: observation({ session: endedOn(waitLimit(at('03:00'))), restarts: restarts(crashes(5)) }),
      now: afterLimit(at('03:00')),
      want: { kind: 'start', mode: 'continue' },
    },
  ])('$name → $want.kind', ({ obs, now, want }) => {
    expect(decide(spec(), obs, now)).toMatchObject(want);
  });

  test('a synthesis stopped by a limit waits and is tried again', () => {
    const obs = observation({
      session: ended(session('synthesis', 3), {
        exit: exited(1, at('02:00')),
        limit: waitLimit(at('07:30')),
      }),
    });
    expect(decide(spec(), obs, at('07:21'))).toMatchObject({ kind: 'wait' });
    expect(decide(spec(), obs, afterLimit(at('07:30')))).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });
});

describe('hangs (stale_after 30m, hang_grace 5m)', () => {
  // The agent's last output was at 02:00.
  const LAST_OUTPUT = at('02:00');

  test.each<{ name: string; obs: Observation; now: Date; want: Want }>([
    {
      name: 'output 29 minutes ago: nothing',
      obs: observation({ session: running(session()), outputAt: LAST_OUTPUT }),
      now: at('02:29'),
      want: { kind: 'none', reason: 'agent running' },
    },
    {
      name: 'silent 30 minutes: watched, the time kept on disk',
      obs: observation({ session: running(session()), outputAt: LAST_OUTPUT }),
      now: at('02:30'),
      want: { kind: 'watch', reason: 'no output for 30m; stopping it if still silent in 5m' },
    },
    {
      name: 'watched, within the grace: nothing',
      obs: observation({ session: running(session(), { staleSince: at('02:30') }), outputAt: LAST_OUTPUT }),
      now: at('02:34'),
      want: { kind: 'none' },
    },
    {
      name: 'still silent after the grace: stopped as hung',
      obs: observation({ session: running(session(), { staleSince: at('02:30') }), outputAt: LAST_OUTPUT }),
      now: at('02:35'),
      want: { kind: 'interrupt', hung: true, reason: 'hung: no output for 35m' },
    },
    {
      name: 'fresh output since the mark: the mark no longer counts',
      obs: observation({ session: running(session(), { staleSince: at('01:00') }), outputAt: LAST_OUTPUT }),
      now: at('02:31'),
      want: { kind: 'watch' },
    },
  ])('$name → $want.kind', ({ obs, now, want }) => {
    expect(decide(spec(), obs, now)).toMatchObject(want);
  });

  test('a session stopped as hung is resumed as a crash, saying so', () => {
    const obs = observation({ session: ended(session(), { exit: exited(0, at('02:35:01')), hung: true }) });
    expect(decide(spec(), obs, at('02:35:02'))).toMatchObject({
      kind: 'start',
      mode: 'resume',
      reason: 'stopped as hung (exit 0)',
    });
  });
});

describe('refused credentials (counted on their own)', () => {
  const refused = errorResult('Invalid API key · Fix external API key');
  test('the first is retried without using a crash restart', () => {
    const obs = observation({
      session: ended(session(), { exit: exited(1), result: refused, authFailures: 1 }),
      restarts: restarts(crashes(5)),
    });
    expect(decide(spec(), obs, BEFORE_END)).toMatchObject({ kind: 'start', mode: 'retry' });
  });
  test('the second in a row fails the run, naming the fix', () => {
    const obs = observation({
      session: ended(session(), { exit: exited(1), result: refused, authFailures: 2 }),
    });
    const action = decide(spec(), obs, BEFORE_END);
    expect(action).toMatchObject({ kind: 'finish', sentinel: 'FAILED' });
    expect(action.reason).toBe(
      `authentication failed 2 times in a row (Invalid API key · Fix external API key); ${AUTH_FIX}`,
    );
    expect(action.reason).toMatch(/claude setup-token.*CLAUDE_CODE_OAUTH_TOKEN.*ANTHROPIC_API_KEY/);
  });
});

describe('escalation to a fresh session', () => {
  type Resumed = { kind: 'start'; mode: 'resume'; fresh?: string; reason?: string };
  /** A crash resumed in a fresh session, saying why. */
  const fresh = (why: string): Resumed => ({
    kind: 'start',
    mode: 'resume',
    fresh: why,
    reason: `agent ended (exit 1); starting a fresh session: ${why}`,
  });

  test.each<{ name: string; agent: Partial<AgentNotRunning>; want: Resumed }>([
    { name: 'a transcript to resume: resumed', agent: {}, want: { kind: 'start', mode: 'resume' } },
    {
      name: 'no transcript: never resumed (that would start an empty conversation)',
      agent: { transcriptBytes: null },
      want: fresh('the transcript is missing'),
    },
    {
      name: 'a transcript over max_transcript',
      agent: { transcriptBytes: 300 * 1024 * 1024 },
      want: fresh('the transcript is 300 MB, over max_transcript (256 MB)'),
    },
    {
      name: 'three failed resumes in a row without output',
      agent: { failedResumes: 3 },
      want: fresh('3 resumes in a row failed without output'),
    },
  ])('$name → $want.kind', ({ agent, want }) => {
    const obs = observation({ session: ended(session(), { exit: exited(1), ...agent }) });
    const action = decide(spec(), obs, BEFORE_END);
    expect(action).toMatchObject(want);
    // Resumed as it is: no fresh session asked for at all.
    expect((action as { fresh?: string }).fresh).toBe(want.fresh);
  });

  test('the synthesis, too, starts fresh when the transcript is gone', () => {
    const obs = observation({ session: ended(session(), { exit: exited(0), transcriptBytes: null }) });
    expect(decide(spec(), obs, AFTER_END)).toMatchObject({
      kind: 'start',
      mode: 'synthesis',
      fresh: 'the transcript is missing',
    });
  });
});

describe('named ends', () => {
  test('max turns is a normal stop: continued, not counted', () => {
    const obs = observation({
      session: ended(session(), { exit: exited(1), result: errorResult('', { subtype: 'error_max_turns' }) }),
      restarts: restarts(crashes(5)),
    });
    const action = decide(spec(), obs, BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
    expect(action.reason).toMatch(/^max-turns after 3h44m, time left$/);
  });
  test('overloaded is API trouble that says so, waited out, not a crash', () => {
    const overloaded = errorResult('API Error: 529 Overloaded', { apiErrorStatus: 529 });
    const obs = observation({ session: ended(session(), { exit: exited(1), result: overloaded }) });
    expect(decide(spec(), obs, at('02:59:10'))).toMatchObject({
      kind: 'wait',
      until: at('02:59:30'),
      reason:
        'the API failed (529, exit 1): API Error: 529 Overloaded; not counted as a restart; backing off 30s',
    });
    expect(decide(spec(), obs, at('02:59:30'))).toMatchObject({ kind: 'start', mode: 'retry' });
  });
  test('exit 0 without a result is an interrupted session, resumed as a crash', () => {
    const obs = observation({ session: ended(session(), { exit: exited(0) }) });
    expect(decide(spec(), obs, BEFORE_END)).toMatchObject({
      kind: 'start',
      mode: 'resume',
      reason: 'interrupted without a result (exit 0)',
    });
  });
});

test('an agent waiting for input nobody will give fails the run at once, stopping it', () => {
  const obs = observation({
    session: running(session(), { promptSeen: 'Do you trust the files in this folder?' }),
    outputAt: BEFORE_END,
  });
  expect(decide(spec(), obs, BEFORE_END)).toEqual({
    kind: 'finish',
    cause: 'prompt',
    sentinel: 'FAILED',
    stopAgent: true,
    reason: 'the agent is waiting for input nobody will give: "Do you trust the files in this folder?"',
    rule: '4.3',
  });
});

test('synthesis tries wait for the backoff after the first', () => {
  const obs = observation({
    session: ended(session('synthesis', 3), { exit: exited(1, at('07:20')) }),
    restarts: restarts(['synthesis', 'synthesis']),
  });
  expect(decide(spec(), obs, at('07:20:10'))).toMatchObject({ kind: 'wait', until: at('07:20:30') });
  expect(decide(spec(), obs, at('07:20:30'))).toMatchObject({
    kind: 'start',
    mode: 'synthesis',
    reason: 'the synthesis ended without REPORT.md (exit 1); trying again (3/10)',
  });
});

describe('a synthesis is watched too', () => {
  const SYNTHESIS = session('synthesis', 2);
  test('silent past stale_after: marked; then stopped as hung, to be tried again', () => {
    const silent = observation({ session: running(SYNTHESIS), outputAt: at('07:16') });
    expect(decide(spec(), silent, at('07:46'))).toMatchObject({ kind: 'finish' });
    const s = spec({ limits: { ...spec().limits, synthesisBudget: 7200 } });
    expect(decide(s, silent, at('07:46'))).toMatchObject({ kind: 'watch' });
    const marked = observation({
      session: running(SYNTHESIS, { staleSince: at('07:46') }),
      outputAt: at('07:16'),
    });
    expect(decide(s, marked, at('07:51'))).toMatchObject({ kind: 'interrupt', hung: true });
  });
  test('waiting for input: stopped, to be tried again', () => {
    const obs = observation({
      session: running(SYNTHESIS, { promptSeen: 'Press Enter to continue' }),
      outputAt: AFTER_END,
    });
    expect(decide(spec(), obs, AFTER_END)).toMatchObject({
      kind: 'interrupt',
      reason: 'the synthesis is waiting for input nobody will give: "Press Enter to continue"',
    });
  });
});

test('a session that hit its budget cap (max-budget) continues like a clean exit', () => {
  const obs = observation({
    session: ended(session(), {
      exit: exited(1),
      result: errorResult('', { subtype: 'error_max_budget_usd' }),
    }),
    restarts: restarts(crashes(5)),
  });
  expect(decide(spec(), obs, BEFORE_END)).toMatchObject({ kind: 'start', mode: 'continue' });
});
