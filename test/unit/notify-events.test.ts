import { describe, expect, test } from 'vitest';

import { eventOf, kindsOf, testEvent, type RunFacts } from '../../src/core/notify/events.js';
import type { NotifyEventKind } from '../../src/core/notify/targets.js';
import type { RunSpec } from '../../src/core/run/types.js';
import { decide } from '../../src/core/supervise/decide.js';
import { stateAfter, stateOf } from '../../src/core/supervise/state.js';
import type { Observation } from '../../src/core/supervise/types.js';
import {
  AFTER_BUDGET,
  AFTER_END,
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

/** The events-log line act writes for decide's action (src/reconcile/act.ts). */
function lineFor(obs: Observation, now: Date, over: Partial<RunSpec> = {}): Record<string, unknown> {
  const action = decide(spec(over), obs, now);
  const from = stateOf(obs);
  const details =
    action.kind === 'wait'
      ? { until: action.until.toISOString() }
      : action.kind === 'start'
        ? { session: 2, mode: action.mode, exit: action.exit }
        : {};
  return {
    at: now.toISOString(),
    from,
    to: stateAfter(action, from),
    action: action.kind,
    reason: action.reason,
    ...details,
  };
}

interface Case {
  name: string;
  line: Record<string, unknown>;
  reportExists?: boolean;
  want: NotifyEventKind[] | null;
}

describe('which transitions are news, from what decide records', () => {
  test.each<Case>([
    {
      name: 'DONE with REPORT.md',
      line: lineFor(
        observation({ session: ended(session(), { exit: exited(0) }), reportExists: true }),
        BEFORE_END,
      ),
      reportExists: true,
      want: ['done'],
    },
    {
      name: 'DONE without a report (the synthesis never wrote it)',
      line: lineFor(
        observation({ session: ended(session('synthesis', 2), { exit: exited(1) }) }),
        AFTER_BUDGET,
      ),
      want: ['needs-you', 'done'],
    },
    {
      name: 'FAILED: credentials refused twice',
      line: lineFor(
        observation({
          session: ended(session(), {
            exit: exited(1),
            authFailures: 2,
            result: errorResult('Invalid API key'),
          }),
        }),
        BEFORE_END,
      ),
      want: ['needs-you', 'failed'],
    },
    {
      name: 'FAILED: a prompt nobody will answer',
      line: lineFor(
        observation({ session: running(session(), { promptSeen: 'Do you trust this folder?' }) }),
        BEFORE_END,
      ),
      want: ['needs-you', 'failed'],
    },
    {
      name: 'FAILED: a usage limit no wait lifts',
      line: lineFor(
        observation({
          session: ended(session(), { exit: exited(1), limit: hardLimit('spend limit reached') }),
        }),
        BEFORE_END,
      ),
      want: ['needs-you', 'failed'],
    },
    {
      name: 'FAILED: the circuit breaker',
      line: lineFor(
        observation({
          session: ended(session('resume', 6), { exit: exited(1) }),
          restarts: restarts(crashes(5)),
        }),
        BEFORE_END,
      ),
      want: ['failed'],
    },
    {
      name: 'FAILED: the spend cap left nothing for the report',
      line: lineFor(
        observation({ session: ended(session(), { exit: exited(0), costUsd: 9.99 }) }),
        BEFORE_END,
        {
          maxCost: 10,
        },
      ),
      want: ['failed'],
    },
    {
      name: 'a crash resumed',
      line: lineFor(observation({ session: ended(session(), { exit: exited(1) }) }), BEFORE_END),
      want: ['restart'],
    },
    {
      name: 'a refused login retried',
      line: lineFor(
        observation({
          session: ended(session(), { exit: exited(1), authFailures: 1, result: errorResult('401') }),
        }),
        BEFORE_END,
      ),
      want: ['restart'],
    },
    {
      name: 'a usage limit waited out',
      line: lineFor(
        observation({ session: ended(session(), { exit: exited(1), limit: waitLimit(at('04:00')) }) }),
        BEFORE_END,
      ),
      want: ['waiting'],
    },
    {
      name: 'a backoff between quick crashes',
      line: lineFor(
        observation({
          session: ended({ n: 3, mode: 'resume', startedAt: at('02:58') }, { exit: exited(1) }),
          restarts: restarts(['resume'], { from: at('02:50'), uptime: 5 }),
        }),
        at('02:59:10'),
      ),
      want: ['waiting'],
    },
    {
      name: 'a clean exit continued (the plan, not news)',
      line: lineFor(
        observation({ session: ended(session(), { exit: exited(0), result: cleanResult('done for now') }) }),
        BEFORE_END,
      ),
      want: null,
    },
    {
      name: 'the synthesis started at the end time',
      line: lineFor(observation({ session: ended(session(), { exit: exited(0) }) }), AFTER_END),
      want: null,
    },
    {
      name: 'the agent interrupted at the end time',
      line: lineFor(observation({ session: running(session()) }), AFTER_END),
      want: null,
    },
    {
      name: 'a hang watched',
      line: { action: 'watch', to: 'running', reason: 'no output for 30m' },
      want: null,
    },
  ])('$name → $want', ({ line, reportExists = false, want }) => {
    expect(kindsOf(line, reportExists)).toEqual(want);
  });
});

describe('what the person does or the supervisor notes is not news', () => {
  test.each<Case>([
    { name: 'stop', line: { to: 'done', action: 'stop', reason: 'stopped by user' }, want: null },
    { name: 'pause', line: { action: 'pause', reason: 'by user' }, want: null },
    { name: 'resume', line: { action: 'resume', reason: 'by user' }, want: null },
    { name: 'pin-model', line: { action: 'pin-model', model: 'claude-opus-4-1' }, want: null },
    {
      name: 'fresh-session',
      line: { action: 'fresh-session', previous: 'a', conversation: 'b' },
      want: null,
    },
    { name: 'wrong-conversation', line: { action: 'wrong-conversation' }, want: null },
    { name: 'a failed notice', line: { action: 'notify-failed', event: 'done', error: 'x' }, want: null },
    { name: 'cleanup', line: { action: 'cleanup', to: 'done', reason: 'DONE is present' }, want: null },
    { name: 'a line from a newer version', line: { action: 'something-new', to: 'running' }, want: null },
  ])('$name → $want', ({ line, want }) => {
    expect(kindsOf(line, false)).toEqual(want);
  });
});

describe("issue 10's transitions, matched on what they say", () => {
  test.each<Case>([
    {
      name: 'a late report waits for the limit',
      line: { action: 'wait', to: 'waiting', reason: 'report late: limit lifts at 08:05', until: 'x' },
      want: ['report-late', 'waiting'],
    },
    {
      name: 'marked late',
      line: { action: 'wait', to: 'waiting', reason: 'limit', late: true },
      want: ['report-late', 'waiting'],
    },
    {
      name: 'paid overage waited out',
      line: { action: 'wait', to: 'waiting', reason: 'paid extra usage: waiting for the window to reset' },
      want: ['overage', 'waiting'],
    },
    {
      name: 'overage allowed, recorded as it starts',
      line: { action: 'overage', to: 'running', reason: 'on extra usage since 03:12', overage: true },
      want: ['overage'],
    },
    {
      name: 'the interrupt before the overage wait (the wait is the one notice)',
      line: { action: 'interrupt', to: 'waiting', reason: 'the agent is billing paid overage' },
      want: null,
    },
  ])('$name → $want', ({ line, want }) => {
    expect(kindsOf(line, false)).toEqual(want);
  });
});

describe('the event sent', () => {
  const run: RunFacts = {
    id: '2026-11-21-2315-survey-crdt',
    workspace: '/runs/2026-11-21-2315-survey-crdt',
    report: '/runs/2026-11-21-2315-survey-crdt/REPORT.md',
    task: 'Survey CRDT libraries\nfor offline sync',
  };

  test('a finished run: its id is the run and the line offset; the task is its first line', () => {
    const line = {
      at: '2026-11-22T07:40:00.000Z',
      from: 'synthesizing',
      to: 'done',
      action: 'finish',
      reason: 'finished: REPORT.md written by the synthesis',
    };
    expect(eventOf(line, 1234, run)).toEqual({
      id: '2026-11-21-2315-survey-crdt:1234',
      event: 'done',
      kinds: ['done'],
      run: run.id,
      state: 'done',
      reason: 'finished: REPORT.md written by the synthesis',
      at: '2026-11-22T07:40:00.000Z',
      report: run.report,
      workspace: run.workspace,
      task: 'Survey CRDT libraries',
    });
  });

  test('hostile fields of a line are left out: a state that is none, times out of range (issue 17)', () => {
    const line = {
      at: '9999-01-01T00:00:00.000Z',
      to: '<meta http-equiv="refresh">',
      action: 'wait',
      until: '1970-01-01T00:00:00.000Z',
      reason: `usage limit that waiting will not lift ${'x'.repeat(1 << 20)}`,
    };
    const got = eventOf({ ...line, action: 'finish', to: 'failed' }, 1, run);
    expect(got).toMatchObject({ state: 'failed', event: 'needs-you' });
    expect(got?.reason.length).toBeLessThanOrEqual(300);
    const late = eventOf({ ...line, reason: 'report late: limit lifts at 08:05' }, 2, run);
    expect(late).toMatchObject({ state: 'waiting', at: '' });
    expect(late && 'until' in late).toBe(false);
  });

  test('a wait carries its end', () => {
    const line = {
      at: 'x',
      to: 'waiting',
      action: 'wait',
      reason: 'five_hour limit',
      until: '2026-11-22T04:05:00.000Z',
    };
    expect(eventOf(line, 0, run)).toMatchObject({ event: 'waiting', until: '2026-11-22T04:05:00.000Z' });
  });

  test('not news → null', () => {
    expect(eventOf({ action: 'stop', to: 'done', reason: 'stopped by user' }, 0, run)).toBeNull();
  });

  test('a long reason is cut to one line', () => {
    const line = { action: 'finish', to: 'failed', reason: `circuit breaker:\n${'x'.repeat(400)}` };
    const e = eventOf(line, 0, run);
    expect(e?.reason).toHaveLength(300);
    expect(e?.reason).not.toContain('\n');
  });

  test('the test event', () => {
    expect(testEvent(new Date('2026-11-22T07:00:00Z'), '/runs')).toMatchObject({
      event: 'test',
      run: 'test',
      state: 'test',
      workspace: '/runs',
    });
  });
});
