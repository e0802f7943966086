import type { Question } from '../../src/core/agent/questions.js';
import type { Digest, DigestRun } from '../../src/core/digest/types.js';
import { buildTimeline } from '../../src/core/status/timeline.js';
import { at, ev, exit, exits, log, night, STARTED } from './story-builders.js';

// A whole night for the digest's tables and its page in Chromium: a run that finished after a
// crash and a usage limit, one that failed on its circuit breaker, one still at work after a
// hang, and text from the agent that tries to break out of the page and the terminal.

export const NOW = at('07:45:00');
const WS = '/home/me/overnight-runs';

const q = (title: string, priority: Question['priority'], over: Partial<Question> = {}): Question => ({
  title,
  priority,
  answered: false,
  ...over,
});

export const HOSTILE_TITLE = '<script>alert("pwned")</script> Is \u001b[31mred\u001b[0m text allowed?';

const crdt: DigestRun = {
  id: '2026-11-21-2315-survey-crdt',
  task: 'Survey CRDT libraries for offline sync',
  state: 'done',
  reason: 'finished: REPORT.md written by the synthesis',
  costUsd: 4.12,
  startedAt: STARTED,
  endsAt: at('07:15:00'),
  workspace: `${WS}/2026-11-21-2315-survey-crdt`,
  report: {
    path: `${WS}/2026-11-21-2315-survey-crdt/REPORT.md`,
    head: [
      '# CRDT libraries for offline sync',
      'Yjs is the safest choice today: the largest ecosystem, steady releases, and good offline support.',
      'Automerge 3 closes the gap on memory use; worth a second look in six months.',
    ],
  },
  findings: 7,
  restarts: 1,
  maxRestarts: 5,
  timeline: buildTimeline(
    night({
      events: [
        ev.start(at('01:25:30'), 2, 'resume', 'killed by SIGKILL (exit 137), perhaps out of memory'),
        ev.wait(at('03:10:05'), at('04:05:00'), 'five_hour limit', at('04:00:00')),
        ev.start(at('04:05:00'), 3, 'continue', 'usage limit lifted (five_hour limit)'),
        ev.interrupt(at('07:15:00'), 'end time reached: stopping exploration for the synthesis'),
        ev.start(at('07:15:04'), 4, 'synthesis', 'end time reached (exit 0)'),
        ev.finish(at('07:22:10'), 'done', 'finished: REPORT.md written by the synthesis'),
      ],
      sessions: [
        log(1, 'initial', null),
        log(2, 'resume', { isError: true, apiErrorStatus: 429, text: "You've hit your limit", costUsd: 1.9 }),
        log(3, 'continue', null),
        log(4, 'synthesis', { costUsd: 4.12 }),
      ],
      exits: exits(
        [1, exit(137, at('01:25:00'))],
        [2, exit(1, at('03:10:00'))],
        [3, exit(0, at('07:15:02'))],
        [4, exit(0, at('07:22:05'))],
      ),
      current: { n: 4, mode: 'synthesis', startedAt: at('07:15:04') },
      live: false,
      sentinel: { kind: 'DONE', reason: 'finished: REPORT.md written by the synthesis', at: null },
    }),
  ),
  questions: [
    q('Which sync protocol should the client speak?', 'high', {
      bestGuess: 'y-protocols over WebSocket',
      whyItMatters: 'it decides the server we run',
    }),
    q('Is an MIT or Apache-2.0 licence required?', 'low', { bestGuess: 'either is fine' }),
    q('Do we need end-to-end encryption?', 'medium', { answered: true, answer: 'yes' }),
  ],
};

const billingStart = new Date('2026-11-21T22:40:00Z');
const crash = (n: number, when: string) =>
  ev.start(at(when), n, 'resume', `agent ended (exit 1): API Error: 500 Internal server error`);
const billing: DigestRun = {
  id: '2026-11-21-2240-migrate-billing',
  task: 'Migrate the billing service to the new queue',
  state: 'failed',
  reason: 'circuit breaker: 5 restarts, last exit 1: API Error: 500 Internal server error',
  costUsd: 2.3,
  startedAt: billingStart,
  endsAt: at('06:40:00'),
  workspace: `${WS}/2026-11-21-2240-migrate-billing`,
  report: null,
  findings: 2,
  restarts: 5,
  maxRestarts: 5,
  timeline: buildTimeline(
    night({
      startedAt: billingStart,
      events: [
        crash(2, '00:10:00'),
        crash(3, '00:40:00'),
        ev.wait(at('01:05:00'), at('01:06:00'), 'agent ended (exit 1); backing off 1m'),
        crash(4, '01:06:00'),
        ev.wait(at('01:30:00'), at('01:32:00'), 'agent ended (exit 1); backing off 2m'),
        crash(5, '01:32:00'),
        ev.wait(at('01:50:00'), at('01:54:00'), 'agent ended (exit 1); backing off 4m'),
        crash(6, '01:54:00'),
        ev.finish(at('01:58:00'), 'failed', 'circuit breaker: 5 restarts, last exit 1'),
      ],
      sessions: [1, 2, 3, 4, 5, 6].map((n) =>
        log(n, n === 1 ? 'initial' : 'resume', { isError: true, text: 'API Error: 500', costUsd: 0.38 * n }),
      ),
      exits: exits(
        [1, exit(1, at('00:09:58'))],
        [2, exit(1, at('00:39:58'))],
        [3, exit(1, at('01:04:58'))],
        [4, exit(1, at('01:29:58'))],
        [5, exit(1, at('01:49:58'))],
        [6, exit(1, at('01:57:58'))],
      ),
      current: { n: 6, mode: 'resume', startedAt: at('01:54:00') },
      live: false,
      sentinel: { kind: 'FAILED', reason: 'circuit breaker: 5 restarts, last exit 1', at: null },
    }),
  ),
  questions: [
    q('May the migration pause the nightly invoice job?', 'medium', { bestGuess: 'yes, for an hour' }),
  ],
};

const benchStart = at('00:30:00');
const bench: DigestRun = {
  id: '2026-11-22-0030-benchmark-sync',
  task: 'Benchmark the sync engine under packet loss </div><img src=x onerror=alert(1)>',
  state: 'running',
  reason: '',
  costUsd: 1.07,
  startedAt: benchStart,
  endsAt: at('08:30:00'),
  workspace: `${WS}/2026-11-22-0030-benchmark-sync`,
  report: null,
  findings: 4,
  restarts: 1,
  maxRestarts: 5,
  timeline: buildTimeline(
    night({
      startedAt: benchStart,
      events: [
        ev.watch(at('02:05:00')),
        ev.interrupt(at('02:10:00'), 'hung: no output for 35m', true),
        ev.start(at('02:10:03'), 2, 'resume', 'stopped as hung (exit 0)'),
      ],
      sessions: [log(1, 'initial', null), log(2, 'resume', null, { apiRetries: 4 })],
      exits: exits([1, exit(0, at('02:10:02'))]),
      current: { n: 2, mode: 'resume', startedAt: at('02:10:03') },
    }),
  ),
  questions: [
    q(HOSTILE_TITLE, 'high', { bestGuess: '<b>bold</b> & "quoted"' }),
    q('Which packet-loss rates matter most?', 'unknown'),
  ],
  warnings: [],
};

export function nightDigest(): Digest {
  const since = new Date(NOW.getTime() - 24 * 3600_000);
  return { now: NOW, since, window: 'the last 24h', runs: [crdt, billing, bench] };
}
