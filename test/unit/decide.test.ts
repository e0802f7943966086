import { describe, expect, test } from 'vitest';
import { AUTH_FIX, crashRestarts, decide, describeExit } from '../../src/core/decide.js';
import type { Action, Observation, RestartEntry, RunSpec, SessionMode } from '../../src/core/types.js';
import { ENDS, obs, spec, STARTED } from './builders.js';

const BEFORE_END = new Date('2026-11-22T03:00:00Z');
const AFTER_END = new Date('2026-11-22T07:20:00Z');
// synthesis_budget is 30m by default: the synthesis may run until 07:45.
const BUDGET_END = new Date('2026-11-22T07:45:00Z');
const AFTER_BUDGET = new Date('2026-11-22T08:00:00Z');

function session(mode: SessionMode = 'initial', n = 1) {
  return { n, mode, startedAt: STARTED };
}

function exited(code: number) {
  return { code, at: new Date('2026-11-22T02:59:00Z') };
}

function restarts(...modes: SessionMode[]): RestartEntry[] {
  return modes.map((mode, i) => ({ at: new Date(Date.UTC(2026, 10, 22, 0, i)), mode, exit: 1, uptime: 3600, reason: 'agent ended (exit 1)' }));
}

const crashes = (n: number): SessionMode[] => Array<SessionMode>(n).fill('resume');

interface Case {
  name: string;
  spec?: Partial<RunSpec>;
  obs: Partial<Observation>;
  now: Date;
  want: Partial<Action> & { kind: Action['kind'] };
  reason?: RegExp | string;
}

const cases: Case[] = [
  // 1. sentinels
  { name: 'DONE, nothing alive', obs: { sentinel: { kind: 'DONE', reason: 'finished: REPORT.md written' } }, now: AFTER_END, want: { kind: 'none' }, reason: 'finished: REPORT.md written' },
  { name: 'FAILED, nothing alive', obs: { sentinel: { kind: 'FAILED', reason: 'circuit breaker' } }, now: BEFORE_END, want: { kind: 'none' }, reason: 'circuit breaker' },
  { name: 'DONE with a live agent', obs: { sentinel: { kind: 'DONE', reason: 'stopped by user' }, agentAlive: true, wrapperAlive: true }, now: BEFORE_END, want: { kind: 'cleanup' }, reason: /DONE/ },
  { name: 'FAILED with only the wrapper alive', obs: { sentinel: { kind: 'FAILED', reason: 'x' }, wrapperAlive: true }, now: BEFORE_END, want: { kind: 'cleanup' }, reason: /FAILED/ },
  { name: 'DONE even when paused, agent alive', obs: { sentinel: { kind: 'DONE', reason: 'x' }, paused: true, agentAlive: true }, now: BEFORE_END, want: { kind: 'cleanup' } },
  // 2. paused
  { name: 'paused, agent gone after a crash', obs: { paused: true, exit: exited(1) }, now: BEFORE_END, want: { kind: 'none' }, reason: 'paused' },
  { name: 'paused past the end time', obs: { paused: true }, now: AFTER_END, want: { kind: 'none' }, reason: 'paused' },
  { name: 'paused with a live agent past the end', obs: { paused: true, agentAlive: true }, now: AFTER_END, want: { kind: 'none' }, reason: 'paused' },
  // launch interrupted before the first session
  { name: 'no session before the end', obs: { session: null }, now: BEFORE_END, want: { kind: 'start', mode: 'initial', exit: null } },
  { name: 'no session after the end', obs: { session: null }, now: AFTER_END, want: { kind: 'finish', sentinel: 'DONE', stopAgent: false }, reason: /no report/ },
  // 3. live agent
  { name: 'alive before the end', obs: { agentAlive: true, wrapperAlive: true, outputAt: new Date('2026-11-22T02:59:00Z') }, now: BEFORE_END, want: { kind: 'none' } },
  { name: 'alive resumed session before the end', obs: { session: session('resume', 3), agentAlive: true, outputAt: new Date('2026-11-22T02:59:00Z') }, now: BEFORE_END, want: { kind: 'none' } },
  { name: 'alive exactly at the end time', obs: { agentAlive: true, wrapperAlive: true }, now: ENDS, want: { kind: 'interrupt' }, reason: /end time/ },
  { name: 'alive after the end time', obs: { agentAlive: true }, now: AFTER_END, want: { kind: 'interrupt' } },
  { name: 'alive synthesis within its budget', obs: { session: session('synthesis', 2), agentAlive: true, outputAt: AFTER_END }, now: AFTER_END, want: { kind: 'none' } },
  { name: 'alive synthesis at the end of its budget', obs: { session: session('synthesis', 2), agentAlive: true }, now: BUDGET_END, want: { kind: 'finish', sentinel: 'DONE', stopAgent: true }, reason: /report incomplete/ },
  { name: 'alive synthesis after its budget', obs: { session: session('synthesis', 2), agentAlive: true, reportExists: true }, now: AFTER_BUDGET, want: { kind: 'finish', sentinel: 'DONE', stopAgent: true }, reason: /incomplete/ },
  { name: 'alive synthesis, a 1h budget not yet spent', spec: { limits: { ...spec().limits, synthesisBudget: 3600 } }, obs: { session: session('synthesis', 2), agentAlive: true, outputAt: AFTER_BUDGET }, now: AFTER_BUDGET, want: { kind: 'none' } },
  // wrapper between agent start/exit and its records
  { name: 'wrapper alive, no exit record', obs: { wrapperAlive: true }, now: BEFORE_END, want: { kind: 'none' } },
  { name: 'wrapper alive, no exit record, past the end', obs: { wrapperAlive: true }, now: AFTER_END, want: { kind: 'none' } },
  { name: 'wrapper alive with an exit record is acted on', obs: { wrapperAlive: true, exit: exited(1) }, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: 1 } },
  // 4. synthesis ended
  { name: 'synthesis ended with REPORT.md', obs: { session: session('synthesis', 2), exit: exited(0), reportExists: true }, now: AFTER_END, want: { kind: 'finish', sentinel: 'DONE', stopAgent: false }, reason: /REPORT\.md written/ },
  { name: 'synthesis ended without REPORT.md: tried again while its budget lasts', obs: { session: session('synthesis', 2), exit: exited(1), restarts: restarts('synthesis') }, now: AFTER_END, want: { kind: 'start', mode: 'synthesis', exit: 1 }, reason: 'the synthesis ended without REPORT.md (exit 1); trying again (2/10)' },
  { name: 'synthesis ended without REPORT.md a tenth time', obs: { session: session('synthesis', 11), exit: exited(1), restarts: restarts(...Array<SessionMode>(10).fill('synthesis')) }, now: AFTER_END, want: { kind: 'finish', sentinel: 'DONE', stopAgent: false }, reason: /^no report: the synthesis ended without writing REPORT\.md \(exit 1\)/ },
  { name: 'synthesis gone without an exit record after its budget', obs: { session: session('synthesis', 2) }, now: AFTER_BUDGET, want: { kind: 'finish', sentinel: 'DONE' }, reason: /no exit status recorded/ },
  { name: 'synthesis ended with the spend cap used up', spec: { maxCost: 5 }, obs: { session: session('synthesis', 2), exit: exited(1), costUsd: 5 }, now: AFTER_END, want: { kind: 'finish', sentinel: 'DONE' }, reason: /^no report/ },
  // 5. finished by itself
  { name: 'exit 0 with REPORT.md before the end', obs: { exit: exited(0), reportExists: true }, now: BEFORE_END, want: { kind: 'finish', sentinel: 'DONE', stopAgent: false }, reason: 'finished: REPORT.md written' },
  { name: 'exit 0 with REPORT.md after the end', obs: { exit: exited(0), reportExists: true }, now: AFTER_END, want: { kind: 'finish', sentinel: 'DONE' } },
  // time is up: synthesis
  { name: 'crashed after the end time', obs: { exit: exited(1) }, now: AFTER_END, want: { kind: 'start', mode: 'synthesis', exit: 1 }, reason: 'end time reached (exit 1)' },
  { name: 'interrupted at the end (SIGINT)', obs: { exit: exited(130) }, now: AFTER_END, want: { kind: 'start', mode: 'synthesis', exit: 130 }, reason: /SIGINT/ },
  { name: 'exit 0 without REPORT.md after the end', obs: { exit: exited(0) }, now: AFTER_END, want: { kind: 'start', mode: 'synthesis', exit: 0 } },
  { name: 'breaker spent but the end passed: synthesis wins', obs: { exit: exited(1), restarts: restarts(...crashes(5)) }, now: AFTER_END, want: { kind: 'start', mode: 'synthesis' } },
  // 6. crash → resume or circuit breaker
  { name: 'first crash', obs: { exit: exited(1) }, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: 1 }, reason: 'agent ended (exit 1)' },
  { name: 'exit 0 without a report before the end', obs: { exit: exited(0) }, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: 0 } },
  { name: 'killed by SIGKILL', obs: { exit: exited(137) }, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: 137 }, reason: 'killed by SIGKILL without overnight asking (out of memory?) (killed by SIGKILL (exit 137))' },
  { name: 'gone with no exit record', obs: {}, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: null }, reason: /no exit status recorded/ },
  { name: '4 of 5 restarts used', obs: { exit: exited(1), restarts: restarts(...crashes(4)) }, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: 1 } },
  { name: '5 of 5 restarts used', obs: { exit: exited(1), restarts: restarts(...crashes(5)) }, now: BEFORE_END, want: { kind: 'finish', sentinel: 'FAILED', stopAgent: false }, reason: 'circuit breaker: 5 restarts, last exit 1' },
  { name: 'more than max used', obs: { exit: exited(2), restarts: restarts(...crashes(7)) }, now: BEFORE_END, want: { kind: 'finish', sentinel: 'FAILED' }, reason: 'circuit breaker: 7 restarts, last exit 2' },
  { name: 'breaker after a SIGKILL', obs: { exit: exited(137), restarts: restarts(...crashes(5)) }, now: BEFORE_END, want: { kind: 'finish', sentinel: 'FAILED' }, reason: 'circuit breaker: 5 restarts, last killed by SIGKILL (exit 137)' },
  { name: 'max_restarts 1, one used (singular)', spec: { limits: { ...spec().limits, maxRestarts: 1 } }, obs: { exit: exited(1), restarts: restarts('resume') }, now: BEFORE_END, want: { kind: 'finish', sentinel: 'FAILED' }, reason: 'circuit breaker: 1 restart, last exit 1' },
  { name: 'max_restarts 0 fails at the first crash', spec: { limits: { ...spec().limits, maxRestarts: 0 } }, obs: { exit: exited(1) }, now: BEFORE_END, want: { kind: 'finish', sentinel: 'FAILED' }, reason: 'circuit breaker: 0 restarts, last exit 1' },
  { name: 'synthesis and initial entries are not counted', obs: { exit: exited(1), restarts: restarts('initial', ...crashes(4), 'synthesis', 'synthesis') }, now: BEFORE_END, want: { kind: 'start', mode: 'resume', exit: 1 } },
];

describe('decide', () => {
  test.each(cases)('$name', ({ spec: s, obs: o, now, want, reason }) => {
    const action = decide(spec(s), obs(o), now);
    expect(action).toMatchObject(want);
    expect(action.reason).toBeTruthy();
    if (typeof reason === 'string') expect(action.reason).toBe(reason);
    else if (reason) expect(action.reason).toMatch(reason);
  });

  test('every start and finish action carries its full shape', () => {
    expect(decide(spec(), obs({ exit: exited(1) }), BEFORE_END)).toEqual({ kind: 'start', mode: 'resume', reason: 'agent ended (exit 1)', exit: 1, uptime: 13440 });
    expect(decide(spec(), obs({ exit: exited(0), reportExists: true }), BEFORE_END)).toEqual({
      kind: 'finish',
      sentinel: 'DONE',
      reason: 'finished: REPORT.md written',
      stopAgent: false,
    });
  });

  test('is pure: same inputs, same action; inputs untouched', () => {
    const s = spec();
    const o = obs({ exit: exited(1), restarts: restarts('resume') });
    const copy = structuredClone(o);
    expect(decide(s, o, BEFORE_END)).toEqual(decide(s, o, BEFORE_END));
    expect(o).toEqual(copy);
  });
});

describe('describeExit', () => {
  test.each([
    [null, 'no exit status recorded'],
    [0, 'exit 0'],
    [1, 'exit 1'],
    [128, 'exit 128'],
    [129, 'killed by SIGHUP (exit 129)'],
    [130, 'killed by SIGINT (exit 130)'],
    [134, 'killed by SIGABRT (exit 134)'],
    [137, 'killed by SIGKILL (exit 137)'],
    [139, 'killed by SIGSEGV (exit 139)'],
    [143, 'killed by SIGTERM (exit 143)'],
    [141, 'killed by signal 13 (exit 141)'],
    [255, 'exit 255'],
  ])('%s → %s', (code, text) => {
    expect(describeExit(code)).toBe(text);
  });
});

describe('crashRestarts', () => {
  test.each([
    [[], 0],
    [['resume'], 1],
    [['initial', 'resume', 'synthesis', 'resume'], 2],
    [['synthesis', 'synthesis'], 0],
  ] as [SessionMode[], number][])('%j → %i', (modes, n) => {
    expect(crashRestarts(restarts(...modes))).toBe(n);
  });
});

describe('spend cap (max_cost)', () => {
  test.each<[string, number | null, number, Action['kind'], string]>([
    ['no cap: a crash resumes whatever was spent', null, 100, 'start', 'agent ended (exit 1)'],
    ['under 90 % of the cap: resume', 10, 8.5, 'start', 'agent ended (exit 1)'],
    ['90 % spent: the rest goes to the report', 10, 9.2, 'start', 'spend cap: $9.20 of $10.00 spent'],
    ['all spent: nothing left for a report', 10, 10, 'finish', 'spend cap: $10.00 of $10.00 spent, nothing left for the report'],
  ])('%s', (_name, maxCost, costUsd, kind, reason) => {
    const action = decide(spec({ maxCost }), obs({ exit: exited(1), costUsd }), BEFORE_END);
    expect(action.kind).toBe(kind);
    expect(action.reason).toBe(reason);
    if (kind === 'start' && maxCost !== null && costUsd >= 9) expect(action).toMatchObject({ mode: 'synthesis' });
    if (kind === 'finish') expect(action).toMatchObject({ sentinel: 'FAILED' });
  });
});

describe('time left: continue after a clean exit, back off after quick failures', () => {
  const CLEAN = { isError: false, subtype: 'success', text: 'done for now' };
  const startedAt = new Date('2026-11-22T02:58:00Z');
  const quick = (mode: SessionMode, n: number): RestartEntry[] =>
    Array.from({ length: n }, (_, i) => ({ at: new Date(Date.UTC(2026, 10, 22, 2, 50 + i)), mode, exit: 1, uptime: 5, reason: 'x' }));

  test('a clean exit after a long session continues at once, not counted as a restart', () => {
    const action = decide(spec(), obs({ exit: exited(0), result: CLEAN }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue', exit: 0 });
    expect(action.reason).toMatch(/^clean exit after 3h44m, time left$/);
  });

  test('an error result with exit 0 is not clean: a crash restart', () => {
    const action = decide(spec(), obs({ exit: exited(0), result: { isError: true, subtype: 'success', text: 'API Error: 500' } }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'resume' });
  });

  test('a clean exit after the breaker is full still continues (continuations are not crashes)', () => {
    const action = decide(spec(), obs({ exit: exited(0), result: CLEAN, restarts: restarts(...crashes(5)) }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
  });

  test('a second quick crash waits for the backoff, then resumes', () => {
    const o = obs({ session: { n: 3, mode: 'resume', startedAt }, exit: exited(1), restarts: quick('resume', 1) });
    const waiting = decide(spec(), o, new Date('2026-11-22T02:59:10Z'));
    expect(waiting).toMatchObject({ kind: 'wait', until: new Date('2026-11-22T02:59:30Z') });
    expect(waiting.reason).toMatch(/^agent ended \(exit 1\); backing off 30s, next try at /);
    expect(decide(spec(), o, new Date('2026-11-22T02:59:30Z'))).toMatchObject({ kind: 'start', mode: 'resume', uptime: 60 });
  });

  test('a clean exit shorter than min_uptime backs off like a crash', () => {
    const o = obs({ session: { n: 3, mode: 'continue', startedAt: new Date('2026-11-22T02:58:50Z') }, exit: exited(0), result: CLEAN, restarts: quick('continue', 2) });
    expect(decide(spec(), o, new Date('2026-11-22T02:59:01Z'))).toMatchObject({ kind: 'wait', until: new Date('2026-11-22T03:00:00Z') });
  });

  test('the breaker reason quotes the last error', () => {
    const action = decide(spec(), obs({ exit: exited(1), result: { isError: true, subtype: 'success', text: 'API Error: 529\nOverloaded' }, restarts: restarts(...crashes(5)) }), BEFORE_END);
    expect(action.reason).toBe('circuit breaker: 5 restarts, last exit 1: API Error: 529 Overloaded');
  });
});

test("a crash's reason carries the agent's own error text", () => {
  const action = decide(spec(), obs({ exit: exited(1), result: { isError: true, subtype: 'success', text: 'API Error: Connection refused' } }), BEFORE_END);
  expect(action).toMatchObject({ kind: 'start', mode: 'resume', reason: 'agent ended (exit 1): API Error: Connection refused' });
});

describe('usage limits', () => {
  const at = (iso: string) => new Date(iso);
  const ended = obs({ exit: { code: 1, at: at('2026-11-22T02:00:00Z') } });
  const waitFor = (resetsAt: Date | null, what = 'five_hour limit') => ({ ...ended, limit: { kind: 'wait' as const, resetsAt, what } });

  test.each<[string, Observation, Date, Partial<Action> & { kind: Action['kind'] }]>([
    ['before the reset + margin: wait, not a crash', waitFor(at('2026-11-22T03:00:00Z')), at('2026-11-22T02:01:00Z'), { kind: 'wait', until: at('2026-11-22T03:05:00Z') }],
    ['after it: continue the same conversation, not counted', waitFor(at('2026-11-22T03:00:00Z')), at('2026-11-22T03:05:00Z'), { kind: 'start', mode: 'continue' }],
    ['no readable time: wait the default hour + margin', waitFor(null, "You've hit your limit"), at('2026-11-22T02:30:00Z'), { kind: 'wait', until: at('2026-11-22T03:05:00Z') }],
    ['a reset after the end time: the synthesis starts when it lifts', waitFor(at('2026-11-22T07:20:00Z')), at('2026-11-22T07:25:00Z'), { kind: 'start', mode: 'synthesis' }],
    ['lifting only after the synthesis budget: done, no report', waitFor(at('2026-11-22T09:00:00Z')), at('2026-11-22T02:01:00Z'), { kind: 'finish', sentinel: 'DONE' }],
    ['a limit no wait lifts: failed, saying so', { ...ended, limit: { kind: 'hard', what: "You've hit your org's monthly usage limit" } }, at('2026-11-22T02:01:00Z'), { kind: 'finish', sentinel: 'FAILED', reason: "usage limit that waiting will not lift: You've hit your org's monthly usage limit" }],
    ['the breaker does not count limit waits', { ...waitFor(at('2026-11-22T03:00:00Z')), restarts: restarts(...crashes(5)) }, at('2026-11-22T03:06:00Z'), { kind: 'start', mode: 'continue' }],
  ])('%s', (_name, o, now, want) => {
    expect(decide(spec(), o, now)).toMatchObject(want);
  });

  test('a synthesis stopped by a limit waits and is tried again', () => {
    const o = { ...waitFor(at('2026-11-22T07:30:00Z')), session: session('synthesis', 3) };
    expect(decide(spec(), o, at('2026-11-22T07:21:00Z'))).toMatchObject({ kind: 'wait' });
    expect(decide(spec(), o, at('2026-11-22T07:36:00Z'))).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });
});

describe('hangs (stale_after 30m, hang_grace 5m)', () => {
  const at = (iso: string) => new Date(iso);
  const alive = (over: Partial<Observation> = {}) => obs({ agentAlive: true, wrapperAlive: true, outputAt: at('2026-11-22T02:00:00Z'), ...over });

  test.each<[string, Observation, Date, Partial<Action> & { kind: Action['kind'] }]>([
    ['output 29 minutes ago: nothing', alive(), at('2026-11-22T02:29:00Z'), { kind: 'none', reason: 'agent running' }],
    ['silent 30 minutes: watched, the time kept on disk', alive(), at('2026-11-22T02:30:00Z'), { kind: 'watch', reason: 'no output for 30m; stopping it if still silent in 5m' }],
    ['watched, within the grace: nothing', alive({ staleSince: at('2026-11-22T02:30:00Z') }), at('2026-11-22T02:34:00Z'), { kind: 'none' }],
    ['still silent after the grace: stopped as hung', alive({ staleSince: at('2026-11-22T02:30:00Z') }), at('2026-11-22T02:35:00Z'), { kind: 'interrupt', hung: true, reason: 'hung: no output for 35m' }],
    ['fresh output since the mark: the mark no longer counts', alive({ staleSince: at('2026-11-22T01:00:00Z') }), at('2026-11-22T02:31:00Z'), { kind: 'watch' }],
  ])('%s', (_name, o, now, want) => {
    expect(decide(spec(), o, now)).toMatchObject(want);
  });

  test('a session stopped as hung is resumed as a crash, saying so', () => {
    const action = decide(spec(), obs({ exit: { code: 0, at: at('2026-11-22T02:35:01Z') }, hung: true }), at('2026-11-22T02:35:02Z'));
    expect(action).toMatchObject({ kind: 'start', mode: 'resume', reason: 'stopped as hung (exit 0)' });
  });
});

describe('refused credentials (counted on their own)', () => {
  const refused = { isError: true, subtype: 'success', text: 'Invalid API key · Fix external API key' };
  test('the first is retried without using a crash restart', () => {
    expect(decide(spec(), obs({ exit: exited(1), result: refused, authFailures: 1, restarts: restarts(...crashes(5)) }), BEFORE_END)).toMatchObject({ kind: 'start', mode: 'retry' });
  });
  test('the second in a row fails the run, naming the fix', () => {
    const action = decide(spec(), obs({ exit: exited(1), result: refused, authFailures: 2 }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'finish', sentinel: 'FAILED' });
    expect(action.reason).toBe(`authentication failed 2 times in a row (Invalid API key · Fix external API key); ${AUTH_FIX}`);
    expect(action.reason).toMatch(/claude setup-token.*CLAUDE_CODE_OAUTH_TOKEN.*ANTHROPIC_API_KEY/);
  });
});

describe('escalation to a fresh session', () => {
  test.each<[string, Partial<Observation>, string | undefined]>([
    ['a transcript to resume: resumed', {}, undefined],
    ['no transcript: never resumed (that would start an empty conversation)', { transcriptBytes: null }, 'the transcript is missing'],
    ['a transcript over max_transcript', { transcriptBytes: 300 * 1024 * 1024 }, 'the transcript is 300 MB, over max_transcript (256 MB)'],
    ['three failed resumes in a row without output', { failedResumes: 3 }, '3 resumes in a row failed without output'],
  ])('%s', (_name, over, fresh) => {
    const action = decide(spec(), obs({ exit: exited(1), ...over }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'resume' });
    expect((action as { fresh?: string }).fresh).toBe(fresh);
    if (fresh) expect(action.reason).toBe(`agent ended (exit 1); starting a fresh session: ${fresh}`);
  });

  test('the synthesis, too, starts fresh when the transcript is gone', () => {
    expect(decide(spec(), obs({ exit: exited(0), transcriptBytes: null }), AFTER_END)).toMatchObject({ kind: 'start', mode: 'synthesis', fresh: 'the transcript is missing' });
  });
});

describe('named ends', () => {
  test('max turns is a normal stop: continued, not counted', () => {
    const action = decide(spec(), obs({ exit: exited(1), result: { isError: true, subtype: 'error_max_turns', text: '' }, restarts: restarts(...crashes(5)) }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
    expect(action.reason).toMatch(/^max-turns after 3h44m, time left$/);
  });
  test('overloaded is a crash that says so', () => {
    const action = decide(spec(), obs({ exit: exited(1), result: { isError: true, subtype: 'success', text: 'API Error: 529 Overloaded', apiErrorStatus: 529 } }), BEFORE_END);
    expect(action).toMatchObject({ kind: 'start', mode: 'resume', reason: 'the API was overloaded (exit 1): API Error: 529 Overloaded' });
  });
  test('exit 0 without a result is an interrupted session, resumed as a crash', () => {
    expect(decide(spec(), obs({ exit: exited(0) }), BEFORE_END)).toMatchObject({ kind: 'start', mode: 'resume', reason: 'interrupted (no result) (exit 0)' });
  });
});

test('an agent waiting for input nobody will give fails the run at once, stopping it', () => {
  const action = decide(spec(), obs({ agentAlive: true, wrapperAlive: true, outputAt: BEFORE_END, promptSeen: 'Do you trust the files in this folder?' }), BEFORE_END);
  expect(action).toEqual({ kind: 'finish', sentinel: 'FAILED', stopAgent: true, reason: 'the agent is waiting for input nobody will give: "Do you trust the files in this folder?"' });
});

test('synthesis tries wait for the backoff after the first', () => {
  const o = obs({ session: session('synthesis', 3), exit: { code: 1, at: new Date('2026-11-22T07:20:00Z') }, restarts: restarts('synthesis', 'synthesis') });
  expect(decide(spec(), o, new Date('2026-11-22T07:20:10Z'))).toMatchObject({ kind: 'wait', until: new Date('2026-11-22T07:20:30Z') });
  expect(decide(spec(), o, new Date('2026-11-22T07:20:30Z'))).toMatchObject({ kind: 'start', mode: 'synthesis', reason: 'the synthesis ended without REPORT.md (exit 1); trying again (3/10)' });
});

describe('a synthesis is watched too', () => {
  const live = (over: Partial<Observation>) => obs({ session: session('synthesis', 2), agentAlive: true, wrapperAlive: true, ...over });
  test('silent past stale_after: marked; then stopped as hung, to be tried again', () => {
    expect(decide(spec(), live({ outputAt: new Date('2026-11-22T07:16:00Z') }), new Date('2026-11-22T07:46:00Z'))).toMatchObject({ kind: 'finish' });
    const s = spec({ limits: { ...spec().limits, synthesisBudget: 7200 } });
    expect(decide(s, live({ outputAt: new Date('2026-11-22T07:16:00Z') }), new Date('2026-11-22T07:46:00Z'))).toMatchObject({ kind: 'watch' });
    expect(decide(s, live({ outputAt: new Date('2026-11-22T07:16:00Z'), staleSince: new Date('2026-11-22T07:46:00Z') }), new Date('2026-11-22T07:51:00Z'))).toMatchObject({ kind: 'interrupt', hung: true });
  });
  test('waiting for input: stopped, to be tried again', () => {
    expect(decide(spec(), live({ outputAt: AFTER_END, promptSeen: 'Press Enter to continue' }), AFTER_END)).toMatchObject({ kind: 'interrupt', reason: 'the synthesis is waiting for input nobody will give: "Press Enter to continue"' });
  });
});

test('a session that hit its budget cap (max-budget) continues like a clean exit', () => {
  const action = decide(spec(), obs({ exit: exited(1), result: { isError: true, subtype: 'error_max_budget_usd', text: '' }, restarts: restarts(...crashes(5)) }), BEFORE_END);
  expect(action).toMatchObject({ kind: 'start', mode: 'continue' });
});
