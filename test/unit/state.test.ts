import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { RUN_STATES, type RestartEntry, type RunState, type SessionMode } from '../../src/core/run/types.js';
import { describeAction } from '../../src/core/supervise/describe.js';
import {
  endUnrecorded,
  mayBeStarting,
  reasonOf,
  stateAfter,
  stateOf,
} from '../../src/core/supervise/state.js';
import type { Action } from '../../src/core/supervise/types.js';
import { obs, STARTED, type FlatObservation } from './builders.js';

const UTC = localTime('UTC');

const session = (mode: SessionMode, n = 2) => ({ n, mode, startedAt: STARTED });
const exited = (code: number) => ({ code, at: new Date('2026-11-22T02:00:00Z') });
const restarts = (...modes: SessionMode[]): RestartEntry[] =>
  modes.map((mode, i) => ({
    at: new Date(Date.UTC(2026, 10, 22, 1, i)),
    mode,
    exit: 1,
    uptime: 60,
    reason: 'x',
  }));

describe('stateOf', () => {
  test.each<[string, Partial<FlatObservation>, RunState]>([
    ['DONE', { sentinel: { kind: 'DONE', reason: 'r' } }, 'done'],
    ['FAILED', { sentinel: { kind: 'FAILED', reason: 'r' } }, 'failed'],
    [
      'DONE wins over a live agent and PAUSE',
      { sentinel: { kind: 'DONE', reason: 'r' }, agentAlive: true, paused: true },
      'done',
    ],
    ['paused', { paused: true }, 'paused'],
    ['paused with a live agent', { paused: true, agentAlive: true }, 'paused'],
    ['agent alive', { agentAlive: true, wrapperAlive: true }, 'running'],
    ['resumed agent alive', { agentAlive: true, session: session('resume') }, 'running'],
    ['wrapper starting the agent', { wrapperAlive: true }, 'running'],
    ['synthesis alive', { agentAlive: true, session: session('synthesis') }, 'synthesizing'],
    ['synthesis wrapper starting', { wrapperAlive: true, session: session('synthesis') }, 'synthesizing'],
    ['wrapper alive, agent exited', { wrapperAlive: true, exit: exited(1) }, 'waiting'],
    ['agent gone', {}, 'waiting'],
    ['synthesis gone', { session: session('synthesis'), exit: exited(0) }, 'waiting'],
    ['never started', { session: null }, 'waiting'],
  ])('%s → %s', (_name, over, want) => {
    expect(stateOf(obs(over))).toBe(want);
  });
});

describe('endUnrecorded', () => {
  test.each<[string, Partial<FlatObservation>, boolean]>([
    ['agent and wrapper gone, no exit record', {}, true],
    ['the exit is recorded', { exit: exited(1) }, false],
    ['the wrapper still runs (recording the exit, or starting the agent)', { wrapperAlive: true }, false],
    ['the agent is alive', { agentAlive: true, wrapperAlive: true }, false],
    ['finished', { sentinel: { kind: 'DONE', reason: 'r' } }, false],
    ['paused', { paused: true }, false],
    ['never started', { session: null }, false],
  ])('%s → %s', (_name, over, want) => {
    expect(endUnrecorded(obs(over))).toBe(want);
  });
});

describe('mayBeStarting (a session recorded, its wrapper not yet in tmux)', () => {
  const at = (seconds: number) => new Date(STARTED.getTime() + seconds * 1000);
  test.each<[string, Partial<FlatObservation>, Date, boolean]>([
    ['started 2 s ago, nothing yet', {}, at(2), true],
    ['started 9 s ago, nothing yet', {}, at(9), true],
    ['started 10 s ago: a lost agent', {}, at(10), false],
    ['started an hour ago: a lost agent', {}, at(3600), false],
    ['started 2 s ago, the wrapper is up', { wrapperAlive: true }, at(2), false],
    ['started 2 s ago, already ended with a record', { exit: exited(1) }, at(2), false],
  ])('%s → %s', (_name, over, now, want) => {
    expect(mayBeStarting(obs(over), now)).toBe(want);
  });
});

describe('stateAfter', () => {
  test.each<[Action, RunState, RunState]>([
    [{ kind: 'start', mode: 'initial', reason: '', exit: null }, 'waiting', 'running'],
    [{ kind: 'start', mode: 'resume', reason: '', exit: 1 }, 'waiting', 'running'],
    [{ kind: 'start', mode: 'synthesis', reason: '', exit: 0 }, 'waiting', 'synthesizing'],
    [{ kind: 'finish', sentinel: 'DONE', reason: '', stopAgent: false }, 'waiting', 'done'],
    [{ kind: 'finish', sentinel: 'DONE', reason: '', stopAgent: true }, 'synthesizing', 'done'],
    [{ kind: 'finish', sentinel: 'FAILED', reason: '', stopAgent: false }, 'waiting', 'failed'],
    [{ kind: 'interrupt', reason: '' }, 'running', 'waiting'],
    [{ kind: 'none', reason: '' }, 'running', 'running'],
    [{ kind: 'none', reason: '' }, 'paused', 'paused'],
    [{ kind: 'cleanup', reason: '' }, 'done', 'done'],
    [{ kind: 'cleanup', reason: '' }, 'failed', 'failed'],
  ])('%j from %s → %s', (action, before, after) => {
    expect(stateAfter(action, before)).toBe(after);
    expect(RUN_STATES).toContain(after);
  });
});

describe('reasonOf', () => {
  test.each<[string, Partial<FlatObservation>, string | RegExp]>([
    [
      'a sentinel gives its reason',
      { sentinel: { kind: 'FAILED', reason: 'circuit breaker: 5 restarts, last exit 1' } },
      'circuit breaker: 5 restarts, last exit 1',
    ],
    ['paused', { paused: true }, 'paused (overnight resume <run>, or resume --all for a pause of every run)'],
    ['running: no reason', { agentAlive: true }, ''],
    ['synthesizing: no reason', { agentAlive: true, session: session('synthesis') }, ''],
    ['wrapper starting: no reason', { wrapperAlive: true }, ''],
    ['never started', { session: null }, 'not started yet; the next reconcile pass starts it'],
    ['crashed', { exit: exited(1) }, 'agent ended (exit 1); the next reconcile pass acts on it'],
    [
      'killed',
      { exit: exited(137), wrapperAlive: true },
      'agent ended (killed by SIGKILL (exit 137)); the next reconcile pass acts on it',
    ],
    ['gone without a record', {}, /no exit status recorded/],
  ])('%s', (_name, over, want) => {
    const reason = reasonOf(obs(over));
    if (typeof want === 'string') expect(reason).toBe(want);
    else expect(reason).toMatch(want);
  });
});

describe('describeAction', () => {
  test.each<[Action, Partial<FlatObservation>, number, string]>([
    [{ kind: 'none', reason: 'agent running' }, {}, 5, 'nothing to do: agent running'],
    [
      { kind: 'cleanup', reason: 'DONE is present but an agent is still running' },
      {},
      5,
      'stopped a leftover agent: DONE is present but an agent is still running',
    ],
    [{ kind: 'interrupt', reason: 'end time reached' }, {}, 5, 'interrupted the agent: end time reached'],
    [
      { kind: 'finish', sentinel: 'DONE', reason: 'finished: REPORT.md written', stopAgent: false },
      {},
      5,
      'DONE: finished: REPORT.md written',
    ],
    [
      {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: 'circuit breaker: 5 restarts, last exit 1',
        stopAgent: false,
      },
      {},
      5,
      'FAILED: circuit breaker: 5 restarts, last exit 1',
    ],
    [
      { kind: 'start', mode: 'initial', reason: 'first session was never started', exit: null },
      {},
      5,
      'started the first session: first session was never started',
    ],
    [
      { kind: 'start', mode: 'synthesis', reason: 'end time reached (exit 1)', exit: 1 },
      { restarts: restarts('resume') },
      5,
      'started the synthesis: end time reached (exit 1)',
    ],
    [
      { kind: 'start', mode: 'resume', reason: 'agent ended (exit 1)', exit: 1 },
      {},
      5,
      'resumed (restart 1/5): agent ended (exit 1)',
    ],
    [
      { kind: 'start', mode: 'resume', reason: 'agent ended (exit 137)', exit: 137 },
      { restarts: restarts('resume', 'resume', 'resume') },
      5,
      'resumed (restart 4/5): agent ended (exit 137)',
    ],
    [
      { kind: 'start', mode: 'resume', reason: 'r', exit: 1 },
      { restarts: restarts('resume', 'synthesis', 'initial') },
      3,
      'resumed (restart 2/3): r',
    ],
    [
      { kind: 'start', mode: 'continue', reason: 'clean exit after 2h, time left', exit: 0 },
      {},
      5,
      'continued the session: clean exit after 2h, time left',
    ],
    [
      {
        kind: 'wait',
        until: new Date('2026-11-22T03:00:00Z'),
        reason: 'agent ended (exit 1); backing off 30s',
      },
      {},
      5,
      'waiting: agent ended (exit 1); backing off 30s, next try at 03:00:00',
    ],
  ])('%j', (action, over, max, want) => {
    expect(describeAction(action, obs(over), max, UTC)).toBe(want);
  });
});

describe('describeAction for --dry-run', () => {
  test.each<[Action, string]>([
    [{ kind: 'interrupt', reason: 'end time reached' }, 'would interrupt the agent: end time reached'],
    [
      { kind: 'start', mode: 'resume', reason: 'agent ended (exit 1)', exit: 1 },
      'would resume (restart 1/5): agent ended (exit 1)',
    ],
    [
      { kind: 'start', mode: 'synthesis', reason: 'end time reached', exit: 0 },
      'would start the synthesis: end time reached',
    ],
    [
      { kind: 'finish', sentinel: 'FAILED', reason: 'circuit breaker', stopAgent: false },
      'would write FAILED: circuit breaker',
    ],
    [{ kind: 'cleanup', reason: 'DONE is present' }, 'would stop a leftover agent: DONE is present'],
  ])('%o', (action, line) => {
    expect(describeAction(action, obs(), 5, UTC, true)).toBe(line);
  });
});
