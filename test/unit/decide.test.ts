import { describe, expect, test } from 'vitest';

import type { RunSpec, SessionMode } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { crashRestarts, describeExit } from '../../src/core/supervise/exits.js';
import type { Action } from '../../src/core/supervise/types.js';
import {
  AFTER_BUDGET,
  AFTER_END,
  BEFORE_END,
  BUDGET_END,
  crashes,
  ENDS,
  exited,
  obs,
  restarts,
  session,
  spec,
  type FlatObservation,
} from './builders.js';

interface Case {
  name: string;
  spec?: Partial<RunSpec>;
  obs: Partial<FlatObservation>;
  now: Date;
  want: Partial<Action> & { kind: Action['kind'] };
  reason?: RegExp | string;
}

const cases: Case[] = [
  // 1. sentinels
  {
    name: 'DONE, nothing alive',
    obs: { sentinel: { kind: 'DONE', reason: 'finished: REPORT.md written' } },
    now: AFTER_END,
    want: { kind: 'none' },
    reason: 'finished: REPORT.md written',
  },
  {
    name: 'FAILED, nothing alive',
    obs: { sentinel: { kind: 'FAILED', reason: 'circuit breaker' } },
    now: BEFORE_END,
    want: { kind: 'none' },
    reason: 'circuit breaker',
  },
  {
    name: 'DONE with a live agent',
    obs: { sentinel: { kind: 'DONE', reason: 'stopped by user' }, agentAlive: true, wrapperAlive: true },
    now: BEFORE_END,
    want: { kind: 'cleanup' },
    reason: /DONE/,
  },
  {
    name: 'FAILED with only the wrapper alive',
    obs: { sentinel: { kind: 'FAILED', reason: 'x' }, wrapperAlive: true },
    now: BEFORE_END,
    want: { kind: 'cleanup' },
    reason: /FAILED/,
  },
  {
    name: 'DONE even when paused, agent alive',
    obs: { sentinel: { kind: 'DONE', reason: 'x' }, paused: true, agentAlive: true },
    now: BEFORE_END,
    want: { kind: 'cleanup' },
  },
  // 2. paused
  {
    name: 'paused, agent gone after a crash',
    obs: { paused: true, exit: exited(1) },
    now: BEFORE_END,
    want: { kind: 'none' },
    reason: 'paused',
  },
  {
    name: 'paused past the end time',
    obs: { paused: true },
    now: AFTER_END,
    want: { kind: 'none' },
    reason: 'paused',
  },
  {
    name: 'paused with a live agent past the end',
    obs: { paused: true, agentAlive: true },
    now: AFTER_END,
    want: { kind: 'none' },
    reason: 'paused',
  },
  // launch interrupted before the first session
  {
    name: 'no session before the end',
    obs: { session: null },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'initial', exit: null },
  },
  {
    name: 'no session after the end',
    obs: { session: null },
    now: AFTER_END,
    want: { kind: 'finish', sentinel: 'DONE', stopAgent: false },
    reason: /no report/,
  },
  // 3. live agent
  {
    name: 'alive before the end',
    obs: { agentAlive: true, wrapperAlive: true, outputAt: new Date('2026-11-22T02:59:00Z') },
    now: BEFORE_END,
    want: { kind: 'none' },
  },
  {
    name: 'alive resumed session before the end',
    obs: { session: session('resume', 3), agentAlive: true, outputAt: new Date('2026-11-22T02:59:00Z') },
    now: BEFORE_END,
    want: { kind: 'none' },
  },
  {
    name: 'alive exactly at the end time',
    obs: { agentAlive: true, wrapperAlive: true },
    now: ENDS,
    want: { kind: 'interrupt' },
    reason: /end time/,
  },
  {
    name: 'alive after the end time',
    obs: { agentAlive: true },
    now: AFTER_END,
    want: { kind: 'interrupt' },
  },
  {
    name: 'alive synthesis within its budget',
    obs: { session: session('synthesis', 2), agentAlive: true, outputAt: AFTER_END },
    now: AFTER_END,
    want: { kind: 'none' },
  },
  {
    name: 'alive synthesis at the end of its budget',
    obs: { session: session('synthesis', 2), agentAlive: true },
    now: BUDGET_END,
    want: { kind: 'finish', sentinel: 'DONE', stopAgent: true },
    reason: /report incomplete/,
  },
  {
    name: 'alive synthesis after its budget',
    obs: { session: session('synthesis', 2), agentAlive: true, reportExists: true },
    now: AFTER_BUDGET,
    want: { kind: 'finish', sentinel: 'DONE', stopAgent: true },
    reason: /incomplete/,
  },
  {
    name: 'alive synthesis, a 1h budget not yet spent',
    spec: { limits: { ...spec().limits, synthesisBudget: 3600 } },
    obs: { session: session('synthesis', 2), agentAlive: true, outputAt: AFTER_BUDGET },
    now: AFTER_BUDGET,
    want: { kind: 'none' },
  },
  // wrapper between agent start/exit and its records
  {
    name: 'wrapper alive, no exit record',
    obs: { wrapperAlive: true },
    now: BEFORE_END,
    want: { kind: 'none' },
  },
  {
    name: 'wrapper alive, no exit record, past the end',
    obs: { wrapperAlive: true },
    now: AFTER_END,
    want: { kind: 'none' },
  },
  {
    name: 'wrapper alive with an exit record is acted on',
    obs: { wrapperAlive: true, exit: exited(1) },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: 1 },
  },
  // 4. synthesis ended
  {
    name: 'synthesis ended with REPORT.md',
    obs: { session: session('synthesis', 2), exit: exited(0), reportExists: true },
    now: AFTER_END,
    want: { kind: 'finish', sentinel: 'DONE', stopAgent: false },
    reason: /REPORT\.md written/,
  },
  {
    name: 'synthesis ended without REPORT.md: tried again while its budget lasts',
    obs: { session: session('synthesis', 2), exit: exited(1), restarts: restarts('synthesis') },
    now: AFTER_END,
    want: { kind: 'start', mode: 'synthesis', exit: 1 },
    reason: 'the synthesis ended without REPORT.md (exit 1); trying again (2/10)',
  },
  {
    name: 'synthesis ended without REPORT.md a tenth time',
    obs: {
      session: session('synthesis', 11),
      exit: exited(1),
      restarts: restarts(...Array<SessionMode>(10).fill('synthesis')),
    },
    now: AFTER_END,
    want: { kind: 'finish', sentinel: 'DONE', stopAgent: false },
    reason: /^no report: the synthesis ended without writing REPORT\.md \(exit 1\)/,
  },
  {
    name: 'synthesis gone without an exit record after its budget',
    obs: { session: session('synthesis', 2) },
    now: AFTER_BUDGET,
    want: { kind: 'finish', sentinel: 'DONE' },
    reason: /no exit status recorded/,
  },
  {
    name: 'synthesis ended with the spend cap used up',
    spec: { maxCost: 5 },
    obs: { session: session('synthesis', 2), exit: exited(1), costUsd: 5 },
    now: AFTER_END,
    want: { kind: 'finish', sentinel: 'DONE' },
    reason: /^no report/,
  },
  // 5. finished by itself
  {
    name: 'exit 0 with REPORT.md before the end',
    obs: { exit: exited(0), reportExists: true },
    now: BEFORE_END,
    want: { kind: 'finish', sentinel: 'DONE', stopAgent: false },
    reason: 'finished: REPORT.md written',
  },
  {
    name: 'exit 0 with REPORT.md after the end',
    obs: { exit: exited(0), reportExists: true },
    now: AFTER_END,
    want: { kind: 'finish', sentinel: 'DONE' },
  },
  // time is up: synthesis
  {
    name: 'crashed after the end time',
    obs: { exit: exited(1) },
    now: AFTER_END,
    want: { kind: 'start', mode: 'synthesis', exit: 1 },
    reason: 'end time reached (exit 1)',
  },
  {
    name: 'interrupted at the end (SIGINT)',
    obs: { exit: exited(130) },
    now: AFTER_END,
    want: { kind: 'start', mode: 'synthesis', exit: 130 },
    reason: /SIGINT/,
  },
  {
    name: 'exit 0 without REPORT.md after the end',
    obs: { exit: exited(0) },
    now: AFTER_END,
    want: { kind: 'start', mode: 'synthesis', exit: 0 },
  },
  {
    name: 'breaker spent but the end passed: synthesis wins',
    obs: { exit: exited(1), restarts: restarts(...crashes(5)) },
    now: AFTER_END,
    want: { kind: 'start', mode: 'synthesis' },
  },
  // 6. crash → resume or circuit breaker
  {
    name: 'first crash',
    obs: { exit: exited(1) },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: 1 },
    reason: 'agent ended (exit 1)',
  },
  {
    name: 'exit 0 without a report before the end',
    obs: { exit: exited(0) },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: 0 },
  },
  {
    name: 'killed by SIGKILL',
    obs: { exit: exited(137) },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: 137 },
    reason: 'killed by SIGKILL without overnight asking (out of memory?) (killed by SIGKILL (exit 137))',
  },
  {
    name: 'gone with no exit record',
    obs: {},
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: null },
    reason: /no exit status recorded/,
  },
  {
    name: '4 of 5 restarts used',
    obs: { exit: exited(1), restarts: restarts(...crashes(4)) },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: 1 },
  },
  {
    name: '5 of 5 restarts used',
    obs: { exit: exited(1), restarts: restarts(...crashes(5)) },
    now: BEFORE_END,
    want: { kind: 'finish', sentinel: 'FAILED', stopAgent: false },
    reason: 'circuit breaker: 5 restarts, last exit 1',
  },
  {
    name: 'more than max used',
    obs: { exit: exited(2), restarts: restarts(...crashes(7)) },
    now: BEFORE_END,
    want: { kind: 'finish', sentinel: 'FAILED' },
    reason: 'circuit breaker: 7 restarts, last exit 2',
  },
  {
    name: 'breaker after a SIGKILL',
    obs: { exit: exited(137), restarts: restarts(...crashes(5)) },
    now: BEFORE_END,
    want: { kind: 'finish', sentinel: 'FAILED' },
    reason: 'circuit breaker: 5 restarts, last killed by SIGKILL (exit 137)',
  },
  {
    name: 'max_restarts 1, one used (singular)',
    spec: { limits: { ...spec().limits, maxRestarts: 1 } },
    obs: { exit: exited(1), restarts: restarts('resume') },
    now: BEFORE_END,
    want: { kind: 'finish', sentinel: 'FAILED' },
    reason: 'circuit breaker: 1 restart, last exit 1',
  },
  {
    name: 'max_restarts 0 fails at the first crash',
    spec: { limits: { ...spec().limits, maxRestarts: 0 } },
    obs: { exit: exited(1) },
    now: BEFORE_END,
    want: { kind: 'finish', sentinel: 'FAILED' },
    reason: 'circuit breaker: 0 restarts, last exit 1',
  },
  {
    name: 'synthesis and initial entries are not counted',
    obs: { exit: exited(1), restarts: restarts('initial', ...crashes(4), 'synthesis', 'synthesis') },
    now: BEFORE_END,
    want: { kind: 'start', mode: 'resume', exit: 1 },
  },
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
    expect(decide(spec(), obs({ exit: exited(1) }), BEFORE_END)).toEqual({
      kind: 'start',
      mode: 'resume',
      reason: 'agent ended (exit 1)',
      exit: 1,
      uptime: 13440,
    });
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
