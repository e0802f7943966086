import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { RUN_STATES, type RunState } from '../../src/core/run/types.js';
import { describeAction } from '../../src/core/supervise/describe.js';
import {
  endUnrecorded,
  mayBeStarting,
  reasonOf,
  stateAfter,
  stateOf,
} from '../../src/core/supervise/state.js';
import type { Action, Observation } from '../../src/core/supervise/types.js';
import {
  at,
  done,
  ended,
  exited,
  failed,
  observation,
  restarts,
  running,
  session,
  STARTED,
} from './builders.js';

const UTC = localTime('UTC');
/** When the agent of these observations exited, if it did. */
const EXIT_AT = at('02:00');
/** restart.log lines of these tables: from 01:00, each after a minute-long session. */
const LOG = { from: at('01:00'), uptime: 60, reason: 'x' };

describe('stateOf', () => {
  test.each<{ name: string; obs: Observation; want: RunState }>([
    { name: 'DONE', obs: observation({ sentinel: done('r') }), want: 'done' },
    { name: 'FAILED', obs: observation({ sentinel: failed('r') }), want: 'failed' },
    {
      name: 'DONE wins over a live agent and PAUSE',
      obs: observation({ sentinel: done('r'), session: running(session()), paused: true }),
      want: 'done',
    },
    { name: 'paused', obs: observation({ paused: true }), want: 'paused' },
    {
      name: 'paused with a live agent',
      obs: observation({ paused: true, session: running(session()) }),
      want: 'paused',
    },
    { name: 'agent alive', obs: observation({ session: running(session()) }), want: 'running' },
    {
      name: 'resumed agent alive',
      obs: observation({ session: running(session('resume', 2)) }),
      want: 'running',
    },
    {
      name: 'wrapper starting the agent',
      obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
      want: 'running',
    },
    {
      name: 'synthesis alive',
      obs: observation({ session: running(session('synthesis', 2)) }),
      want: 'synthesizing',
    },
    {
      name: 'synthesis wrapper starting',
      obs: observation({ session: ended(session('synthesis', 2), { wrapperAlive: true }) }),
      want: 'synthesizing',
    },
    {
      name: 'wrapper alive, agent exited',
      obs: observation({ session: ended(session(), { wrapperAlive: true, exit: exited(1, EXIT_AT) }) }),
      want: 'waiting',
    },
    { name: 'agent gone', obs: observation({ session: ended(session()) }), want: 'waiting' },
    {
      name: 'synthesis gone',
      obs: observation({ session: ended(session('synthesis', 2), { exit: exited(0, EXIT_AT) }) }),
      want: 'waiting',
    },
    { name: 'never started', obs: observation({ session: null }), want: 'waiting' },
  ])('$name → $want', ({ obs, want }) => {
    expect(stateOf(obs)).toBe(want);
  });
});

describe('endUnrecorded', () => {
  test.each<{ name: string; obs: Observation; want: boolean }>([
    {
      name: 'agent and wrapper gone, no exit record',
      obs: observation({ session: ended(session()) }),
      want: true,
    },
    {
      name: 'the exit is recorded',
      obs: observation({ session: ended(session(), { exit: exited(1, EXIT_AT) }) }),
      want: false,
    },
    {
      name: 'the wrapper still runs (recording the exit, or starting the agent)',
      obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
      want: false,
    },
    {
      name: 'the wrapper recorded itself and is gone: nothing more is on its way',
      obs: observation({ session: ended(session(), { wrapperGone: true }) }),
      want: false,
    },
    { name: 'the agent is alive', obs: observation({ session: running(session()) }), want: false },
    { name: 'finished', obs: observation({ sentinel: done('r') }), want: false },
    { name: 'paused', obs: observation({ paused: true }), want: false },
    { name: 'never started', obs: observation({ session: null }), want: false },
  ])('$name → $want', ({ obs, want }) => {
    expect(endUnrecorded(obs)).toBe(want);
  });
});

describe('mayBeStarting (a session recorded, its wrapper not yet in tmux)', () => {
  const after = (seconds: number) => new Date(STARTED.getTime() + seconds * 1000);
  test.each<{ name: string; obs: Observation; now: Date; want: boolean }>([
    {
      name: 'started 2 s ago, nothing yet',
      obs: observation({ session: ended(session()) }),
      now: after(2),
      want: true,
    },
    {
      name: 'started 9 s ago, nothing yet',
      obs: observation({ session: ended(session()) }),
      now: after(9),
      want: true,
    },
    {
      name: 'started 10 s ago: a lost agent',
      obs: observation({ session: ended(session()) }),
      now: after(10),
      want: false,
    },
    {
      name: 'started an hour ago: a lost agent',
      obs: observation({ session: ended(session()) }),
      now: after(3600),
      want: false,
    },
    {
      name: 'started 2 s ago, the wrapper is up',
      obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
      now: after(2),
      want: false,
    },
    {
      name: 'started 2 s ago, already ended with a record',
      obs: observation({ session: ended(session(), { exit: exited(1, EXIT_AT) }) }),
      now: after(2),
      want: false,
    },
  ])('$name → $want', ({ obs, now, want }) => {
    expect(mayBeStarting(obs, now)).toBe(want);
  });
});

describe('stateAfter', () => {
  test.each<{ action: Action; before: RunState; want: RunState }>([
    {
      action: { kind: 'start', cause: 'unknown', mode: 'initial', reason: '', exit: null },
      before: 'waiting',
      want: 'running',
    },
    {
      action: { kind: 'start', cause: 'unknown', mode: 'resume', reason: '', exit: 1 },
      before: 'waiting',
      want: 'running',
    },
    {
      action: { kind: 'start', cause: 'unknown', mode: 'synthesis', reason: '', exit: 0 },
      before: 'waiting',
      want: 'synthesizing',
    },
    {
      action: { kind: 'finish', cause: 'unknown', sentinel: 'DONE', reason: '', stopAgent: false },
      before: 'waiting',
      want: 'done',
    },
    {
      action: { kind: 'finish', cause: 'unknown', sentinel: 'DONE', reason: '', stopAgent: true },
      before: 'synthesizing',
      want: 'done',
    },
    {
      action: { kind: 'finish', cause: 'unknown', sentinel: 'FAILED', reason: '', stopAgent: false },
      before: 'waiting',
      want: 'failed',
    },
    { action: { kind: 'interrupt', cause: 'unknown', reason: '' }, before: 'running', want: 'waiting' },
    { action: { kind: 'none', cause: 'unknown', reason: '' }, before: 'running', want: 'running' },
    { action: { kind: 'none', cause: 'unknown', reason: '' }, before: 'paused', want: 'paused' },
    { action: { kind: 'cleanup', cause: 'unknown', reason: '' }, before: 'done', want: 'done' },
    { action: { kind: 'cleanup', cause: 'unknown', reason: '' }, before: 'failed', want: 'failed' },
  ])('$action.kind from $before → $want', ({ action, before, want }) => {
    expect(stateAfter(action, before)).toBe(want);
    expect(RUN_STATES).toContain(want);
  });
});

describe('reasonOf', () => {
  test.each<{ name: string; obs: Observation; want: string }>([
    {
      name: 'a sentinel gives its reason',
      obs: observation({ sentinel: failed('circuit breaker: 5 restarts, last exit 1') }),
      want: 'circuit breaker: 5 restarts, last exit 1',
    },
    {
      name: 'paused',
      obs: observation({ paused: true }),
      want: 'paused (overnight resume <run>, or resume --all for a pause of every run)',
    },
    { name: 'running: no reason', obs: observation({ session: running(session()) }), want: '' },
    {
      name: 'synthesizing: no reason',
      obs: observation({ session: running(session('synthesis', 2)) }),
      want: '',
    },
    {
      name: 'wrapper starting: no reason',
      obs: observation({ session: ended(session(), { wrapperAlive: true }) }),
      want: '',
    },
    {
      name: 'never started',
      obs: observation({ session: null }),
      want: 'not started yet; the next reconcile pass starts it',
    },
    {
      name: 'crashed',
      obs: observation({ session: ended(session(), { exit: exited(1, EXIT_AT) }) }),
      want: 'agent ended (exit 1); the next reconcile pass acts on it',
    },
    {
      name: 'killed',
      obs: observation({ session: ended(session(), { exit: exited(137, EXIT_AT), wrapperAlive: true }) }),
      want: 'agent ended (killed by SIGKILL (exit 137)); the next reconcile pass acts on it',
    },
    {
      name: 'a session whose agent never started',
      obs: observation({ session: ended(session('resume', 2), { started: false }) }),
      want: 'session 2 never started its agent; the next reconcile pass starts it again',
    },
    {
      name: 'gone without a record',
      obs: observation({ session: ended(session()) }),
      want: expect.stringMatching(/no exit status recorded/),
    },
  ])('$name', ({ obs, want }) => {
    expect(reasonOf(obs)).toEqual(want);
  });
});

describe('describeAction', () => {
  test.each<{ action: Action; obs: Observation; max: number; want: string }>([
    {
      action: { kind: 'none', cause: 'unknown', reason: 'agent running' },
      obs: observation(),
      max: 5,
      want: 'nothing to do: agent running',
    },
    {
      action: { kind: 'cleanup', cause: 'unknown', reason: 'DONE is present but an agent is still running' },
      obs: observation(),
      max: 5,
      want: 'stopped a leftover agent: DONE is present but an agent is still running',
    },
    {
      action: { kind: 'interrupt', cause: 'unknown', reason: 'end time reached' },
      obs: observation(),
      max: 5,
      want: 'interrupted the agent: end time reached',
    },
    {
      action: {
        kind: 'finish',
        cause: 'unknown',
        sentinel: 'DONE',
        reason: 'finished: REPORT.md written',
        stopAgent: false,
      },
      obs: observation(),
      max: 5,
      want: 'DONE: finished: REPORT.md written',
    },
    {
      action: {
        kind: 'finish',
        cause: 'unknown',
        sentinel: 'FAILED',
        reason: 'circuit breaker: 5 restarts, last exit 1',
        stopAgent: false,
      },
      obs: observation(),
      max: 5,
      want: 'FAILED: circuit breaker: 5 restarts, last exit 1',
    },
    {
      action: {
        kind: 'start',
        cause: 'unknown',
        mode: 'initial',
        reason: 'first session was never started',
        exit: null,
      },
      obs: observation(),
      max: 5,
      want: 'started the first session: first session was never started',
    },
    {
      action: {
        kind: 'start',
        cause: 'unknown',
        mode: 'synthesis',
        reason: 'end time reached (exit 1)',
        exit: 1,
      },
      obs: observation({ restarts: restarts(['resume'], LOG) }),
      max: 5,
      want: 'started the synthesis: end time reached (exit 1)',
    },
    {
      action: { kind: 'start', cause: 'unknown', mode: 'resume', reason: 'agent ended (exit 1)', exit: 1 },
      obs: observation(),
      max: 5,
      want: 'resumed (restart 1/5): agent ended (exit 1)',
    },
    {
      action: {
        kind: 'start',
        cause: 'unknown',
        mode: 'resume',
        reason: 'agent ended (exit 137)',
        exit: 137,
      },
      obs: observation({ restarts: restarts(['resume', 'resume', 'resume'], LOG) }),
      max: 5,
      want: 'resumed (restart 4/5): agent ended (exit 137)',
    },
    {
      action: { kind: 'start', cause: 'unknown', mode: 'resume', reason: 'r', exit: 1 },
      obs: observation({ restarts: restarts(['resume', 'synthesis', 'initial'], LOG) }),
      max: 3,
      want: 'resumed (restart 2/3): r',
    },
    {
      action: {
        kind: 'start',
        cause: 'unknown',
        mode: 'continue',
        reason: 'clean exit after 2h, time left',
        exit: 0,
      },
      obs: observation(),
      max: 5,
      want: 'continued the session: clean exit after 2h, time left',
    },
    {
      action: {
        kind: 'wait',
        cause: 'unknown',
        until: at('03:00'),
        reason: 'agent ended (exit 1); backing off 30s',
      },
      obs: observation(),
      max: 5,
      want: 'waiting: agent ended (exit 1); backing off 30s, next try at 03:00:00',
    },
  ])('$action.kind → $want', ({ action, obs, max, want }) => {
    expect(describeAction(action, obs, max, UTC)).toBe(want);
  });
});

describe('describeAction for --dry-run', () => {
  test.each<{ action: Action; want: string }>([
    {
      action: { kind: 'interrupt', cause: 'unknown', reason: 'end time reached' },
      want: 'would interrupt the agent: end time reached',
    },
    {
      action: { kind: 'start', cause: 'unknown', mode: 'resume', reason: 'agent ended (exit 1)', exit: 1 },
      want: 'would resume (restart 1/5): agent ended (exit 1)',
    },
    {
      action: { kind: 'start', cause: 'unknown', mode: 'synthesis', reason: 'end time reached', exit: 0 },
      want: 'would start the synthesis: end time reached',
    },
    {
      action: {
        kind: 'finish',
        cause: 'unknown',
        sentinel: 'FAILED',
        reason: 'circuit breaker',
        stopAgent: false,
      },
      want: 'would write FAILED: circuit breaker',
    },
    {
      action: { kind: 'cleanup', cause: 'unknown', reason: 'DONE is present' },
      want: 'would stop a leftover agent: DONE is present',
    },
  ])('$action.kind → $want', ({ action, want }) => {
    expect(describeAction(action, observation(), 5, UTC, true)).toBe(want);
  });
});
