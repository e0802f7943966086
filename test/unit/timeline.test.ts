import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { parseEvents } from '../../src/core/run/events.js';
import { timelineLines } from '../../src/core/status/timeline-text.js';
import { buildTimeline, waitKind, type TimelineInput } from '../../src/core/status/timeline.js';
import type { Cause } from '../../src/core/supervise/causes.js';
import { legacyCause } from '../../src/core/supervise/legacy-cause.js';
import { at, ev, exit, exits, log, night, STARTED } from './story-builders.js';

const UTC = localTime('UTC');
const lines = (input: TimelineInput) => timelineLines(buildTimeline(input), UTC);
const KILLED = 'killed by SIGKILL (exit 137), perhaps out of memory';

describe('buildTimeline, said in words', () => {
  test.each<{ name: string; input: TimelineInput; want: string[] }>([
    {
      name: 'a first session still at work',
      input: night(),
      want: ['23:15  session 1 started → running'],
    },
    {
      name: 'paused, its agent still at work: running, not "ended without an exit status"',
      input: night({ events: [ev.pause(at('00:00:00'))], paused: true }),
      want: ['23:15  session 1 started → running, paused', '00:00  paused (by user)'],
    },
    {
      name: 'paused, its agent gone without a record: that is said',
      input: night({ events: [ev.pause(at('00:00:00'))], paused: true, live: false }),
      want: [
        '23:15  session 1 started → ended without an exit status or a result',
        '00:00  paused (by user)',
      ],
    },
    {
      name: 'a SIGKILL, then a resume',
      input: night({
        events: [ev.start(at('01:25:30'), 2, 'resume', KILLED)],
        sessions: [log(1, 'initial', null), log(2, 'resume', null)],
        exits: exits([1, exit(137, at('01:25:00'))]),
        current: { n: 2, mode: 'resume', startedAt: at('01:25:30') },
      }),
      want: [
        '23:15  session 1 started → 2h10m, killed by SIGKILL (exit 137), perhaps out of memory',
        '01:25  session 2 resumed (restart 1/5) → running',
      ],
    },
    {
      name: 'a usage limit waited out, then continued',
      input: night({
        events: [
          ev.wait(at('02:00:05'), at('03:05:00'), 'five_hour limit', at('03:00:00')),
          ev.start(at('03:05:00'), 2, 'continue', 'usage limit lifted (five_hour limit)'),
        ],
        sessions: [
          log(1, 'initial', {
            isError: true,
            apiErrorStatus: 429,
            text: "You've hit your 5-hour limit",
            costUsd: 0.1,
          }),
          log(2, 'continue', null),
        ],
        exits: exits([1, exit(1, at('02:00:00'))]),
        current: { n: 2, mode: 'continue', startedAt: at('03:05:00') },
      }),
      want: [
        "23:15  session 1 started → 2h45m, $0.10, error: API 429: You've hit your 5-hour limit",
        '02:00  waiting until 03:05:00: five_hour limit; it resets at 03:00',
        '03:05  session 2 continued: usage limit lifted (five_hour limit) → running',
      ],
    },
    {
      name: 'a hang watched, stopped and resumed',
      input: night({
        events: [
          ev.watch(at('01:00:00')),
          ev.interrupt(at('01:05:00'), 'hung: no output for 35m', true),
          ev.start(at('01:05:02'), 2, 'resume', 'stopped as hung (exit 0)'),
        ],
        sessions: [log(1, 'initial', null), log(2, 'resume', null)],
        exits: exits([1, exit(0, at('01:05:01'))]),
        current: { n: 2, mode: 'resume', startedAt: at('01:05:02') },
      }),
      want: [
        '23:15  session 1 started → 1h50m, stopped as hung (no output for 35m)',
        '01:00  session 1 went silent: no output for 30m; stopping it if still silent in 5m',
        '01:05  session 1 stopped as hung: no output for 35m',
        '01:05  session 2 resumed (restart 1/5) → running',
      ],
    },
    {
      name: 'a hang recorded before interrupts said so (only the reason does)',
      input: night({
        events: [ev.interrupt(at('01:05:00'), 'hung: no output for 35m')],
        exits: exits([1, exit(0, at('01:05:01'))]),
        live: false,
      }),
      want: [
        '23:15  session 1 started → 1h50m, stopped as hung (no output for 35m)',
        '01:05  session 1 stopped as hung: no output for 35m',
      ],
    },
    {
      name: 'the end time, the synthesis and DONE',
      input: night({
        events: [
          ev.start(at('05:00:10'), 2, 'continue', 'clean exit after 5h45m, time left'),
          ev.interrupt(at('07:15:00'), 'end time reached: stopping exploration for the synthesis'),
          ev.start(at('07:15:03'), 3, 'synthesis', 'end time reached (exit 0)'),
          ev.finish(at('07:20:05'), 'done', 'finished: REPORT.md written by the synthesis'),
        ],
        sessions: [
          log(1, 'initial', { costUsd: 0.3 }),
          log(2, 'continue', null),
          log(3, 'synthesis', { costUsd: 0.45 }),
        ],
        exits: exits(
          [1, exit(0, at('05:00:00'))],
          [2, exit(0, at('07:15:02'))],
          [3, exit(0, at('07:20:00'))],
        ),
        current: { n: 3, mode: 'synthesis', startedAt: at('07:15:03') },
        live: false,
        sentinel: { kind: 'DONE', reason: 'finished: REPORT.md written by the synthesis', at: null },
      }),
      want: [
        '23:15  session 1 started → 5h45m, $0.30, ended its turn',
        '05:00  session 2 continued: clean exit after 5h45m, time left → 2h14m, interrupted at the end time',
        '07:15  session 2 interrupted: end time reached, for the synthesis',
        '07:15  session 3, the synthesis, started: end time reached (exit 0) → 4m57s, $0.15, ended its turn',
        '07:20  DONE: finished: REPORT.md written by the synthesis (8h5m in all)',
      ],
    },
    {
      name: 'stopped by the person while the agent ran',
      input: night({
        events: [ev.stop(at('01:00:00'))],
        exits: exits([1, exit(0, at('01:00:01'))]),
        live: false,
        sentinel: { kind: 'DONE', reason: 'stopped by user', at: null },
      }),
      want: [
        '23:15  session 1 started → 1h45m, stopped by user',
        '01:00  session 1 interrupted: stopped by user',
        '01:00  DONE: stopped by user (1h45m in all)',
      ],
    },
    {
      name: 'stopped by the person while the run waited: nothing was interrupted',
      input: night({
        events: [
          ev.wait(at('00:30:05'), at('00:31:05'), 'agent ended (exit 1); backing off 1m'),
          ev.stop(at('00:31:00')),
        ],
        exits: exits([1, exit(1, at('00:30:00'))]),
        live: false,
        sentinel: { kind: 'DONE', reason: 'stopped by user', at: null },
      }),
      want: [
        '23:15  session 1 started → 1h15m, exit 1 without a result',
        '00:30  waiting until 00:31:05: agent ended (exit 1); backing off 1m',
        '00:31  DONE: stopped by user (1h16m in all)',
      ],
    },
    {
      name: 'FAILED with no event for it: at the time the sentinel was written',
      input: night({
        exits: exits([1, exit(1, at('00:15:00'))]),
        live: false,
        sentinel: { kind: 'FAILED', reason: 'circuit breaker: 5 restarts, last exit 1', at: at('00:15:02') },
      }),
      want: [
        '23:15  session 1 started → 1h, exit 1 without a result',
        '00:15  FAILED: circuit breaker: 5 restarts, last exit 1 (1h2s in all)',
      ],
    },
    {
      name: 'paused and resumed by the person, a resume that ran another conversation, a notice given up',
      input: night({
        events: [
          ev.pause(at('00:00:00')),
          ev.resume(at('00:10:00')),
          ev.wrong(at('01:00:00'), '11111111-2222-4333-8444-555555555555'),
          ev.notifyFailed(at('01:30:00'), 'the restart notice to phone was given up after 5 tries: HTTP 502'),
        ],
      }),
      want: [
        '23:15  session 1 started → running',
        '00:00  paused (by user)',
        '00:10  pause lifted (by user)',
        '01:00  warning: session 1 ran conversation 11111111-2222-4333-8444-555555555555 instead of ' +
          'resuming 0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a',
        '01:30  warning: the restart notice to phone was given up after 5 tries: HTTP 502',
      ],
    },
    {
      name: 'no events.jsonl: starts and reasons from restart.log and the session record',
      input: night({
        restarts: [
          { at: at('01:00:00'), mode: 'resume', exit: 1, uptime: 6300, reason: 'agent ended (exit 1)' },
        ],
        sessions: [log(1, 'initial', null), log(2, 'resume', null)],
        exits: exits([1, exit(1, at('00:59:59'))]),
        current: { n: 2, mode: 'resume', startedAt: at('01:00:00') },
      }),
      want: [
        '23:15  session 1 started → 1h44m, exit 1 without a result',
        '01:00  session 2 resumed (restart 1/5) → running',
      ],
    },
    {
      name: 'a fresh conversation, whose cost starts again from nothing',
      input: night({
        events: [
          ev.start(at('01:00:00'), 2, 'resume', 'agent ended (exit 1); starting a fresh session', {
            fresh: 'the transcript is missing',
          }),
        ],
        sessions: [
          log(1, 'initial', { isError: true, text: 'API Error: 500', costUsd: 0.5 }),
          log(2, 'resume', { costUsd: 0.2, sessionId: 'ffffffff-0000-4000-8000-000000000000' }),
        ],
        exits: exits([1, exit(1, at('00:59:00'))], [2, exit(0, at('02:00:00'))]),
        current: { n: 2, mode: 'resume', startedAt: at('01:00:00') },
        live: false,
      }),
      want: [
        '23:15  session 1 started → 1h44m, $0.50, error: API Error: 500',
        '01:00  session 2 resumed (restart 1/5) in a fresh conversation: the transcript is missing → ' +
          '1h, $0.20, ended its turn',
      ],
    },
    {
      name: '`overnight finish`: the interrupt and the synthesis are the person’s, not the clock’s',
      input: night({
        events: [
          {
            ...ev.finish(at('03:00:00'), 'done', 'finished early by user'),
            to: null,
            cause: 'finished-early',
          },
          ev.interrupt(at('03:00:01'), 'end time reached: stopping exploration for the synthesis'),
          ev.start(at('03:00:05'), 2, 'synthesis', 'end time reached (exit 0)'),
          ev.finish(at('03:04:00'), 'done', 'finished: REPORT.md written by the synthesis'),
        ],
        sessions: [log(1, 'initial', null), log(2, 'synthesis', { costUsd: 0.2 })],
        exits: exits([1, exit(0, at('03:00:04'))], [2, exit(0, at('03:03:59'))]),
        current: { n: 2, mode: 'synthesis', startedAt: at('03:00:05') },
        live: false,
        sentinel: { kind: 'DONE', reason: 'finished: REPORT.md written by the synthesis', at: null },
      }),
      want: [
        '23:15  session 1 started → 3h45m, finished early by user (overnight finish), for the synthesis',
        '03:00  session 1 interrupted: finished early by user (overnight finish), for the synthesis',
        '03:00  session 2, the synthesis, started: finished early by user (overnight finish) → 3m54s, $0.20, ended its turn',
        '03:04  DONE: finished: REPORT.md written by the synthesis (3h49m in all)',
      ],
    },
    {
      name: 'one notification given up after every restart: said once, with how many times',
      input: night({
        events: [1, 2, 3].flatMap((n) => [
          ev.start(at(`0${n}:00:00`), n + 1, 'resume', 'exit 1'),
          ev.notifyFailed(
            at(`0${n}:00:30`),
            'the restart notice to phone was given up after 5 tries: HTTP 502',
          ),
        ]),
        sessions: [log(1, 'initial', null)],
        exits: exits(
          [1, exit(1, at('00:59:59'))],
          [2, exit(1, at('01:59:59'))],
          [3, exit(1, at('02:59:59'))],
        ),
        current: { n: 4, mode: 'resume', startedAt: at('03:00:00') },
      }),
      want: [
        '23:15  session 1 started → 1h44m, exit 1 without a result',
        '01:00  session 2 resumed (restart 1/5) → 59m59s, exit 1 without a result',
        '01:00  warning: the restart notice to phone was given up after 5 tries: HTTP 502 (3 times)',
        '02:00  session 3 resumed (restart 2/5) → 59m59s, exit 1 without a result',
        '03:00  session 4 resumed (restart 3/5) → running',
      ],
    },
  ])('$name → $want.length entries', ({ input, want }) => {
    expect(lines(input)).toEqual(want);
  });
});

describe('buildTimeline, as data', () => {
  test('a resume carries its restart count, duration, cost and how it ended', () => {
    const [, second] = buildTimeline(
      night({
        events: [ev.start(at('00:15:00'), 2, 'resume', 'agent ended (exit 1)')],
        sessions: [
          log(1, 'initial', { costUsd: 0.1 }),
          log(2, 'resume', { costUsd: 0.25 }, { apiRetries: 3 }),
        ],
        exits: exits([1, exit(1, at('00:14:00'))], [2, exit(0, at('00:45:00'))]),
        current: { n: 2, mode: 'resume', startedAt: at('00:15:00') },
        live: false,
      }),
    );
    expect(second).toEqual({
      at: at('00:15:00'),
      kind: 'session',
      session: 2,
      mode: 'resume',
      why: 'agent ended (exit 1)',
      restart: { count: 1, max: 5 },
      endedAt: at('00:45:00'),
      seconds: 1800,
      costUsd: 0.15,
      apiRetries: 3,
      end: { kind: 'ok', text: 'ended its turn', exit: 0 },
    });
  });

  test('the finish says the total time from the launch', () => {
    const entries = buildTimeline(
      night({
        events: [ev.finish(at('07:15:00'), 'failed', 'circuit breaker')],
        live: false,
        exits: exits([1, exit(1, at('07:14:00'))]),
        sentinel: { kind: 'FAILED', reason: 'circuit breaker', at: null },
      }),
    );
    expect(entries.at(-1)).toEqual({
      at: at('07:15:00'),
      kind: 'finish',
      outcome: 'FAILED',
      reason: 'circuit breaker',
      totalSeconds: (at('07:15:00').getTime() - STARTED.getTime()) / 1000,
    });
  });
});

describe('waitKind', () => {
  test.each<{ cause: Cause; want: ReturnType<typeof waitKind> }>([
    { cause: 'usage-limit', want: 'limit' },
    { cause: 'report-late', want: 'limit' },
    { cause: 'backoff', want: 'backoff' },
    { cause: 'api-trouble', want: 'backoff' },
    { cause: 'synthesis-retry', want: 'backoff' },
    { cause: 'overage', want: 'overage' },
    { cause: 'unknown', want: 'other' },
  ])('$cause → $want', ({ cause, want }) => {
    expect(waitKind(cause)).toBe(want);
  });

  // Waits recorded before codes: their reasons, through legacyCause, as waitFor read them.
  test.each<{ reason: string; want: ReturnType<typeof waitKind> }>([
    { reason: 'five_hour limit', want: 'limit' },
    { reason: 'usage limit', want: 'limit' },
    { reason: 'agent ended (exit 1); backing off 30s', want: 'backoff' },
    { reason: 'paid extra usage (overage) in use', want: 'overage' },
    { reason: 'something new', want: 'other' },
  ])('"$reason" → $want', ({ reason, want }) => {
    expect(waitKind(legacyCause(reason))).toBe(want);
  });
});

describe('parseEvents', () => {
  test('a torn last line, a foreign line and a line without a time are skipped', () => {
    const text = [
      '{"at":"2026-11-22T01:00:00.000Z","action":"watch","reason":"no output"}',
      'not json',
      '{"action":"start"}',
      '[1,2]',
      '{"at":"2026-11-22T01:05:00.000Z","action":"interrupt","reason":"hung: x","hung":true,"signal":"SIGINT"}',
      '{"at":"2026-11-22T01:06:00.000Z","act',
    ].join('\n');
    expect(parseEvents(text).map((e) => [e.action, e.hung])).toEqual([
      ['watch', false],
      ['interrupt', true],
    ]);
  });
});
