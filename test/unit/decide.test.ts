import { describe, expect, test } from 'vitest';

import type { RunSpec, SessionMode } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { crashRestarts, describeExit } from '../../src/core/supervise/exits.js';
import type { Action, Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_BUDGET,
  AFTER_END,
  at,
  BEFORE_END,
  BUDGET_END,
  cleanResult,
  crashes,
  done,
  ended,
  ENDS,
  errorResult,
  exited,
  failed,
  observation,
  REPO,
  restarts,
  running,
  session,
  spec,
} from './builders.js';

interface Case {
  name: string;
  spec?: Partial<RunSpec>;
  obs: Observation;
  now: Date;
  /** The action, in part; its reason a string, or expect.stringMatching for part of it. */
  want: Partial<Action> & { kind: Action['kind'] };
}

describe('decide', () => {
  test.each<Case>([
    // 1. sentinels
    {
      name: 'DONE, nothing alive',
      obs: observation({ sentinel: done('finished: REPORT.md written') }),
      now: AFTER_END,
      want: { kind: 'none', reason: 'finished: REPORT.md written' },
    },
    {
      name: 'FAILED, nothing alive',
      obs: observation({ sentinel: failed('circuit breaker') }),
      now: BEFORE_END,
      want: { kind: 'none', reason: 'circuit breaker' },
    },
    {
      name: 'DONE with a live agent',
      obs: observation({ sentinel: done('stopped by user'), session: running(session()) }),
      now: BEFORE_END,
      want: { kind: 'cleanup', reason: expect.stringMatching(/DONE/) },
    },
    {
      name: 'FAILED with only the wrapper alive',
      obs: observation({ sentinel: failed('x'), session: ended(session(), { wrapperAlive: true }) }),
      now: BEFORE_END,
      want: { kind: 'cleanup', reason: expect.stringMatching(/FAILED/) },
    },
    {
      name: 'DONE even when paused, agent alive',
      obs: observation({ sentinel: done('x'), paused: true, session: running(session()) }),
      now: BEFORE_END,
      want: { kind: 'cleanup' },
    },
    // 2. paused
    {
      name: 'paused, agent gone after a crash',
      obs: observation({ paused: true, session: ended(session(), { exit: exited(1) }) }),
      now: BEFORE_END,
      want: { kind: 'none', reason: 'paused' },
    },
    {
      name: 'paused past the end time',
      obs: observation({ paused: true }),
      now: AFTER_END,
      want: { kind: 'none', reason: 'paused' },
    },
    {
      name: 'paused with a live agent past the end',
      obs: observation({ paused: true, session: running(session()) }),
      now: AFTER_END,
      want: { kind: 'none', reason: 'paused' },
    },
    // launch interrupted before the first session
    {
      name: 'no session before the end',
      obs: observation({ session: null }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'initial', exit: null },
    },
    {
      name: 'no session after the end',
      obs: observation({ session: null }),
      now: AFTER_END,
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        stopAgent: false,
        reason: expect.stringMatching(/no report/),
      },
    },
    // 3. live agent
    {
      name: 'alive before the end',
      obs: observation({ session: running(session()), outputAt: at('02:59') }),
      now: BEFORE_END,
      want: { kind: 'none' },
    },
    {
      name: 'alive resumed session before the end',
      obs: observation({ session: running(session('resume', 3)), outputAt: at('02:59') }),
      now: BEFORE_END,
      want: { kind: 'none' },
    },
    {
      name: 'alive exactly at the end time',
      obs: observation({ session: running(session()) }),
      now: ENDS,
      want: { kind: 'interrupt', reason: expect.stringMatching(/end time/) },
    },
    {
      name: 'alive after the end time',
      obs: observation({ session: running(session()) }),
      now: AFTER_END,
      want: { kind: 'interrupt' },
    },
    {
      name: 'alive synthesis within its budget',
      obs: observation({ session: running(session('synthesis', 2)), outputAt: AFTER_END }),
      now: AFTER_END,
      want: { kind: 'none' },
    },
    {
      name: 'alive synthesis at the end of its budget',
      obs: observation({ session: running(session('synthesis', 2)) }),
      now: BUDGET_END,
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        stopAgent: true,
        reason: expect.stringMatching(/report incomplete/),
      },
    },
    {
      name: 'alive synthesis after its budget',
      obs: observation({ session: running(session('synthesis', 2)), reportExists: true }),
      now: AFTER_BUDGET,
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        stopAgent: true,
        reason: expect.stringMatching(/incomplete/),
      },
    },
    {
      name: 'alive synthesis, a 1h budget not yet spent',
      spec: { limits: { ...spec().limits, synthesisBudget: 3600 } },
      obs: observation({ session: running(session('synthesis', 2)), outputAt: AFTER_BUDGET }),
      now: AFTER_BUDGET,
      want: { kind: 'none' },
    },
    // wrapper between agent start/exit and its records
    {
      name: 'wrapper alive, no exit record',
      obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
      now: BEFORE_END,
      want: { kind: 'none' },
    },
    {
      name: 'wrapper alive, no exit record, past the end',
      obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
      now: AFTER_END,
      want: { kind: 'none' },
    },
    {
      name: 'wrapper alive with an exit record is acted on',
      obs: observation({ session: ended(session(), { wrapperAlive: true, exit: exited(1) }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume', exit: 1 },
    },
    // 4. synthesis ended
    {
      name: 'synthesis ended with REPORT.md',
      obs: observation({ session: ended(session('synthesis', 2), { exit: exited(0) }), reportExists: true }),
      now: AFTER_END,
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        stopAgent: false,
        reason: expect.stringMatching(/REPORT\.md written/),
      },
    },
    {
      name: 'synthesis ended without REPORT.md: tried again while its budget lasts',
      obs: observation({
        session: ended(session('synthesis', 2), { exit: exited(1) }),
        restarts: restarts(['synthesis']),
      }),
      now: AFTER_END,
      want: {
        kind: 'start',
        mode: 'synthesis',
        exit: 1,
        reason: 'the synthesis ended without REPORT.md (exit 1); trying again (2/10)',
      },
    },
    {
      name: 'synthesis ended without REPORT.md a tenth time',
      obs: observation({
        session: ended(session('synthesis', 11), { exit: exited(1) }),
        restarts: restarts(Array<SessionMode>(10).fill('synthesis')),
      }),
      now: AFTER_END,
      want: {
        kind: 'finish',
        sentinel: 'DONE',
        stopAgent: false,
        reason: expect.stringMatching(
          /^no report: the synthesis ended without writing REPORT\.md \(exit 1\)/,
        ),
      },
    },
    {
      name: 'synthesis gone without an exit record after its budget',
      obs: observation({ session: ended(session('synthesis', 2)) }),
      now: AFTER_BUDGET,
      want: { kind: 'finish', sentinel: 'DONE', reason: expect.stringMatching(/no exit status recorded/) },
    },
    {
      name: 'synthesis ended with the spend cap used up',
      spec: { maxCost: 5 },
      obs: observation({ session: ended(session('synthesis', 2), { exit: exited(1), costUsd: 5 }) }),
      now: AFTER_END,
      want: { kind: 'finish', sentinel: 'DONE', reason: expect.stringMatching(/^no report/) },
    },
    // 5. finished by itself
    {
      name: 'exit 0 with REPORT.md before the end',
      obs: observation({ session: ended(session(), { exit: exited(0) }), reportExists: true }),
      now: BEFORE_END,
      want: { kind: 'finish', sentinel: 'DONE', stopAgent: false, reason: 'finished: REPORT.md written' },
    },
    {
      name: 'exit 0 with REPORT.md after the end',
      obs: observation({ session: ended(session(), { exit: exited(0) }), reportExists: true }),
      now: AFTER_END,
      want: { kind: 'finish', sentinel: 'DONE' },
    },
    // time is up: synthesis
    {
      name: 'crashed after the end time',
      obs: observation({ session: ended(session(), { exit: exited(1) }) }),
      now: AFTER_END,
      want: {
        kind: 'start',
        mode: 'synthesis',
        exit: 1,
        reason: 'end time reached (exit 1); the synthesis starts 5m late, with its whole budget (30m)',
      },
    },
    {
      name: 'interrupted at the end (SIGINT)',
      obs: observation({ session: ended(session(), { exit: exited(130) }) }),
      now: AFTER_END,
      want: { kind: 'start', mode: 'synthesis', exit: 130, reason: expect.stringMatching(/SIGINT/) },
    },
    {
      name: 'exit 0 without REPORT.md after the end',
      obs: observation({ session: ended(session(), { exit: exited(0) }) }),
      now: AFTER_END,
      want: { kind: 'start', mode: 'synthesis', exit: 0 },
    },
    {
      name: 'breaker spent but the end passed: synthesis wins',
      obs: observation({ session: ended(session(), { exit: exited(1) }), restarts: restarts(crashes(5)) }),
      now: AFTER_END,
      want: { kind: 'start', mode: 'synthesis' },
    },
    // 6. crash → resume or circuit breaker
    {
      name: 'first crash',
      obs: observation({ session: ended(session(), { exit: exited(1) }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume', exit: 1, reason: 'agent ended (exit 1)' },
    },
    // A session that never started its agent (tmux refused it) is started again, not a crash.
    {
      name: 'a resume that never started',
      obs: observation({
        session: ended(session('resume', 2), { started: false }),
        restarts: restarts(['resume']),
      }),
      now: BEFORE_END,
      want: {
        kind: 'start',
        mode: 'resume',
        again: true,
        exit: null,
        reason: expect.stringMatching(/never started/),
      },
    },
    {
      name: 'a fresh start that never started, its transcript missing: not escalated again',
      obs: observation({
        session: ended(session('resume', 2), { started: false, transcriptBytes: null }),
        restarts: restarts(['resume']),
      }),
      now: BEFORE_END,
      want: {
        kind: 'start',
        mode: 'resume',
        again: true,
        reason: 'session 2 never started its agent',
      },
    },
    {
      name: 'a synthesis that never started, within its budget',
      obs: observation({ session: ended(session('synthesis', 3), { started: false }) }),
      now: AFTER_END,
      want: { kind: 'start', mode: 'synthesis', again: true },
    },
    {
      name: 'a resume that never started, the end time passed: the synthesis',
      obs: observation({ session: ended(session('resume', 2), { started: false }) }),
      now: AFTER_END,
      want: { kind: 'start', mode: 'synthesis', reason: expect.stringMatching(/^end time reached/) },
    },
    {
      name: 'a synthesis that never started, its budget spent: the end',
      obs: observation({ session: ended(session('synthesis', 3), { started: false }) }),
      now: AFTER_BUDGET,
      want: { kind: 'finish', sentinel: 'DONE', reason: expect.stringMatching(/^no report/) },
    },
    {
      name: 'a clean result with REPORT.md, its exit unrecorded (the wrapper killed)',
      obs: observation({ session: ended(session(), { result: cleanResult('done') }), reportExists: true }),
      now: BEFORE_END,
      want: { kind: 'finish', sentinel: 'DONE', reason: 'finished: REPORT.md written' },
    },
    {
      name: 'a clean result, its exit unrecorded: continued, not a crash',
      obs: observation({ session: ended(session(), { result: cleanResult('done') }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'continue', exit: null },
    },
    {
      name: 'first crash recorded a moment after now (no backoff is no wait)',
      obs: observation({ session: ended(session(), { exit: exited(1, at('03:00:00.005')) }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume', exit: 1 },
    },
    {
      name: 'exit 0 without a report before the end',
      obs: observation({ session: ended(session(), { exit: exited(0) }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume', exit: 0 },
    },
    {
      name: 'killed by SIGKILL',
      obs: observation({ session: ended(session(), { exit: exited(137) }) }),
      now: BEFORE_END,
      want: {
        kind: 'start',
        mode: 'resume',
        exit: 137,
        reason: 'killed by SIGKILL (exit 137), perhaps out of memory',
      },
    },
    {
      name: 'gone with no exit record',
      obs: observation({ session: ended(session()) }),
      now: BEFORE_END,
      want: {
        kind: 'start',
        mode: 'resume',
        exit: null,
        reason: expect.stringMatching(/no exit status recorded/),
      },
    },
    {
      name: '4 of 5 restarts used',
      obs: observation({ session: ended(session(), { exit: exited(1) }), restarts: restarts(crashes(4)) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume', exit: 1 },
    },
    {
      name: '5 of 5 restarts used',
      obs: observation({ session: ended(session(), { exit: exited(1) }), restarts: restarts(crashes(5)) }),
      now: BEFORE_END,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        stopAgent: false,
        reason: 'circuit breaker: 5 restarts, last exit 1',
      },
    },
    {
      name: 'more than max used',
      obs: observation({ session: ended(session(), { exit: exited(2) }), restarts: restarts(crashes(7)) }),
      now: BEFORE_END,
      want: { kind: 'finish', sentinel: 'FAILED', reason: 'circuit breaker: 7 restarts, last exit 2' },
    },
    {
      name: 'breaker after a SIGKILL',
      obs: observation({ session: ended(session(), { exit: exited(137) }), restarts: restarts(crashes(5)) }),
      now: BEFORE_END,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: 'circuit breaker: 5 restarts, last killed by SIGKILL (exit 137)',
      },
    },
    {
      name: 'max_restarts 1, one used (singular)',
      spec: { limits: { ...spec().limits, maxRestarts: 1 } },
      obs: observation({ session: ended(session(), { exit: exited(1) }), restarts: restarts(['resume']) }),
      now: BEFORE_END,
      want: { kind: 'finish', sentinel: 'FAILED', reason: 'circuit breaker: 1 restart, last exit 1' },
    },
    {
      name: 'max_restarts 0 fails at the first crash',
      spec: { limits: { ...spec().limits, maxRestarts: 0 } },
      obs: observation({ session: ended(session(), { exit: exited(1) }) }),
      now: BEFORE_END,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: 'circuit breaker: no restarts allowed (max_restarts 0), last exit 1',
      },
    },
    {
      name: 'no error result: the last line the agent printed (its stderr) is the last error',
      obs: observation({
        session: ended(session(), {
          exit: exited(1),
          lastWords: 'TypeError: Cannot read properties of undefined (reading "x")',
        }),
        restarts: restarts(crashes(5)),
      }),
      now: BEFORE_END,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason:
          'circuit breaker: 5 restarts, last exit 1: TypeError: Cannot read properties of undefined (reading "x")',
      },
    },
    {
      name: 'an error result says more than the last line printed',
      obs: observation({
        session: ended(session(), {
          exit: exited(1),
          result: errorResult('API Error: 500 Internal server error'),
          lastWords: 'at foo (bar.js:1)',
        }),
        restarts: restarts(crashes(5)),
      }),
      now: BEFORE_END,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: 'circuit breaker: 5 restarts, last exit 1: API Error: 500 Internal server error',
      },
    },
    {
      name: 'synthesis and initial entries are not counted',
      obs: observation({
        session: ended(session(), { exit: exited(1) }),
        restarts: restarts(['initial', ...crashes(4), 'synthesis', 'synthesis']),
      }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume', exit: 1 },
    },
    {
      name: 'an exit recorded just after the pass read the clock (the exit race), no backoff due',
      obs: observation({ session: ended(session(), { exit: exited(1, at('03:00:01')) }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume' },
    },
  ])('$name → $want.kind', ({ spec: over, obs, now, want }) => {
    const action = decide(spec(over), obs, now);
    expect(action).toMatchObject(want);
    expect(action.reason).toBeTruthy();
  });

  test('every start and finish action carries its full shape', () => {
    const crashed = observation({ session: ended(session(), { exit: exited(1) }) });
    expect(decide(spec(), crashed, BEFORE_END)).toEqual({
      kind: 'start',
      cause: 'crash',
      mode: 'resume',
      reason: 'agent ended (exit 1)',
      exit: 1,
      uptime: 13440,
      rule: '6.12',
    });
    const finished = observation({ session: ended(session(), { exit: exited(0) }), reportExists: true });
    expect(decide(spec(), finished, BEFORE_END)).toEqual({
      kind: 'finish',
      cause: 'report-written',
      sentinel: 'DONE',
      reason: 'finished: REPORT.md written',
      stopAgent: false,
      rule: '6.6',
    });
  });

  test.each<Case>([
    {
      name: 'a crash, worktree gone',
      spec: { repo: REPO },
      obs: observation({ session: ended(session(), { exit: exited(1) }), worktreeGone: true }),
      now: BEFORE_END,
      want: {
        kind: 'finish',
        sentinel: 'FAILED',
        stopAgent: false,
        reason:
          `the worktree ${REPO.worktree} is gone (removed outside overnight), so no session can start; ` +
          `what was committed is on the branch ${REPO.branch}`,
      },
    },
    {
      name: 'the end time, worktree gone',
      spec: { repo: REPO },
      obs: observation({ session: ended(session(), { exit: exited(0) }), worktreeGone: true }),
      now: AFTER_END,
      want: { kind: 'finish', sentinel: 'FAILED' },
    },
    {
      name: 'an agent still running, worktree gone',
      spec: { repo: REPO },
      obs: observation({ session: running(), worktreeGone: true, outputAt: BEFORE_END }),
      now: BEFORE_END,
      want: { kind: 'none' },
    },
    {
      name: 'a crash, worktree there',
      spec: { repo: REPO },
      obs: observation({ session: ended(session(), { exit: exited(1) }) }),
      now: BEFORE_END,
      want: { kind: 'start', mode: 'resume' },
    },
  ])('a repository run: $name → $want.kind', ({ spec: over, obs, now, want }) => {
    expect(decide(spec(over), obs, now)).toMatchObject(want);
  });

  test('is pure: same inputs, same action; inputs untouched', () => {
    const s = spec();
    const o = observation({ session: ended(session(), { exit: exited(1) }), restarts: restarts(['resume']) });
    const copy = structuredClone(o);
    expect(decide(s, o, BEFORE_END)).toEqual(decide(s, o, BEFORE_END));
    expect(o).toEqual(copy);
  });
});

describe('describeExit', () => {
  test.each<{ code: number | null; want: string }>([
    { code: null, want: 'no exit status recorded' },
    { code: 0, want: 'exit 0' },
    { code: 1, want: 'exit 1' },
    { code: 128, want: 'exit 128' },
    { code: 129, want: 'killed by SIGHUP (exit 129)' },
    { code: 130, want: 'killed by SIGINT (exit 130)' },
    { code: 134, want: 'killed by SIGABRT (exit 134)' },
    { code: 137, want: 'killed by SIGKILL (exit 137)' },
    { code: 139, want: 'killed by SIGSEGV (exit 139)' },
    { code: 143, want: 'killed by SIGTERM (exit 143)' },
    { code: 141, want: 'killed by signal 13 (exit 141)' },
    { code: 255, want: 'exit 255' },
  ])('$code → $want', ({ code, want }) => {
    expect(describeExit(code)).toBe(want);
  });
});

describe('crashRestarts', () => {
  test.each<{ modes: SessionMode[]; want: number }>([
    { modes: [], want: 0 },
    { modes: ['resume'], want: 1 },
    { modes: ['initial', 'resume', 'synthesis', 'resume'], want: 2 },
    { modes: ['synthesis', 'synthesis'], want: 0 },
  ])('$modes → $want', ({ modes, want }) => {
    expect(crashRestarts(restarts(modes))).toBe(want);
  });
});
