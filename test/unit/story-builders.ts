import type { RunEvent } from '../../src/core/run/events.js';
import type { ExitRecord } from '../../src/core/run/types.js';
import type { SessionFacts, TimelineInput } from '../../src/core/status/timeline.js';
import { legacyCause } from '../../src/core/supervise/legacy-cause.js';
import { at, STARTED } from './builders.js';

// A night's records for the timeline and digest tables: events.jsonl lines, each session's
// part of output.log, exit records. Times are of the night of builders.ts (UTC).

export { at, STARTED };

export const CONVERSATION = '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a';

function event(when: Date, action: string, over: Partial<RunEvent> = {}): RunEvent {
  return {
    at: when,
    action,
    from: null,
    to: null,
    reason: '',
    cause: legacyCause(over.reason ?? ''),
    session: null,
    mode: null,
    exit: null,
    until: null,
    resetsAt: null,
    signal: null,
    hung: false,
    fresh: null,
    conversation: null,
    expected: null,
    ...over,
  };
}

export const ev = {
  start: (when: Date, session: number, mode: string, reason: string, over: Partial<RunEvent> = {}) =>
    event(when, 'start', { from: 'waiting', to: 'running', session, mode, reason, ...over }),
  wait: (when: Date, until: Date, reason: string, resetsAt: Date | null = null) =>
    event(when, 'wait', { until, reason, resetsAt }),
  watch: (when: Date) =>
    event(when, 'watch', { reason: 'no output for 30m; stopping it if still silent in 5m' }),
  interrupt: (when: Date, reason: string, hung = false) =>
    event(when, 'interrupt', { reason, hung, signal: 'SIGINT' }),
  finish: (when: Date, to: 'done' | 'failed', reason: string) => event(when, 'finish', { to, reason }),
  stop: (when: Date) => event(when, 'stop', { to: 'done', reason: 'stopped by user' }),
  pause: (when: Date) => event(when, 'pause', { reason: 'by user' }),
  resume: (when: Date) => event(when, 'resume', { reason: 'by user' }),
  wrong: (when: Date, conversation: string) =>
    event(when, 'wrong-conversation', { conversation, expected: CONVERSATION }),
  notifyFailed: (when: Date, reason: string) => event(when, 'notify-failed', { reason }),
};

/** Session n's part of output.log; `cost` is its conversation's running total, as the CLI says it. */
export function log(
  n: number,
  mode: string,
  result: Partial<NonNullable<SessionFacts['result']>> | null = { costUsd: 0.1 },
  over: Partial<SessionFacts> = {},
): SessionFacts {
  return {
    n,
    mode,
    sessionId: CONVERSATION,
    apiRetries: 0,
    result: result && {
      sessionId: CONVERSATION,
      subtype: 'success',
      isError: false,
      apiErrorStatus: null,
      text: 'done',
      costUsd: 0.1,
      ...result,
    },
    ...over,
  };
}

export const exit = (code: number, when: Date): ExitRecord => ({ code, at: when });

/** A run launched at 23:15 whose first session is running, with nothing else recorded yet. */
export function night(over: Partial<TimelineInput> = {}): TimelineInput {
  return {
    startedAt: STARTED,
    maxRestarts: 5,
    events: [],
    restarts: [],
    sessions: [log(1, 'initial', null)],
    exits: new Map(),
    current: { n: 1, mode: 'initial', startedAt: STARTED },
    live: true,
    sentinel: null,
    ...over,
  };
}

export const exits = (...list: [number, ExitRecord][]) => new Map(list);
