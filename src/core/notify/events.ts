import { TEXT_MAX, timeOf } from '../run/bounds.js';
import { taskTitle } from '../run/task.js';
import { RUN_STATES, type RunState } from '../run/types.js';
import { attention } from '../supervise/attention.js';
import { causeOf } from '../supervise/legacy-cause.js';
import { oneLine } from '../text.js';
import type { Verdict } from '../verify/verdict.js';
import type { NotifyEventKind } from './targets.js';

// Which transitions are news, and for whom: a pure mapping from one line of a run's events log
// (`{at, from, to, action, reason, …}`, as act, stop and pause write it) to the event sent.

export interface NotifyEvent {
  /** `<run id>:<byte offset of its line in events.jsonl>`: the same on every pass; receivers may dedupe. */
  id: string;
  /** What the message says it is. */
  event: NotifyEventKind | 'test';
  /** Every name a target's `on:` may use to receive it (the first is `event`). */
  kinds: NotifyEventKind[];
  run: string;
  state: RunState | 'test' | 'digest';
  reason: string;
  /** When the transition was recorded (ISO 8601). */
  at: string;
  /** REPORT.md's absolute path, when the run has one. */
  report: string | null;
  workspace: string;
  /** The task's first line. */
  task: string | null;
  /** A wait's end (ISO 8601). */
  until?: string;
  /** The digest's text (core/digest/text.ts), for the `digest` event. */
  text?: string;
  /** The check's verdict when a run with one ends (`verified: 212 passed, 0 new failures`). */
  verify?: { verdict: Verdict; line: string };
  /** The reviewer's verdict (`unfinished` when it did not finish) and its line, when the run had one. */
  review?: { verdict: string; line: string };
}

const VERDICTS: readonly Verdict[] = ['verified', 'not-verified', 'unchanged', 'error'];

/** The verdict a finish line carries (act records it), read back as untrusted: closed set, one line. */
function verifyOf(raw: Record<string, unknown>): NotifyEvent['verify'] | undefined {
  const verdict = VERDICTS.find((v) => v === raw.verdict);
  if (!verdict || raw.action !== 'finish') return undefined;
  return { verdict, line: oneLine(typeof raw.check === 'string' ? raw.check : '', 300) };
}

const REVIEWS = ['approve', 'concerns', 'reject', 'unfinished'];

/** The review a finish line carries (act records it), read back as untrusted: closed set, one line. */
function reviewOfLine(raw: Record<string, unknown>): NotifyEvent['review'] | undefined {
  const verdict = REVIEWS.find((v) => v === raw.review);
  if (!verdict || raw.action !== 'finish') return undefined;
  return { verdict, line: oneLine(typeof raw.reviewLine === 'string' ? raw.reviewLine : '', 300) };
}

/** What a line alone does not say. */
export interface RunFacts {
  id: string;
  workspace: string;
  report: string | null;
  task: string | null;
}

/** Sessions started after something went wrong; `continue` and the synthesis are the plan. */
const RESTART_MODES = ['resume', 'retry'];

/** The event names a transition answers to, most specific first; null when it is not news. */
export function kindsOf(raw: Record<string, unknown>, reportExists: boolean): NotifyEventKind[] | null {
  const action = typeof raw.action === 'string' ? raw.action : '';
  const to = typeof raw.to === 'string' ? raw.to : '';
  // The line's code; lines written before codes are read from their reason, once (legacyCause).
  const reason = typeof raw.reason === 'string' ? raw.reason.slice(0, TEXT_MAX) : '';
  const cause = causeOf({ ...raw, reason });
  if (action === 'finish' && (to === 'failed' || to === 'done')) {
    const state = to === 'failed' ? 'failed' : 'done';
    const verdict = verifyOf(raw)?.verdict;
    const checkFailed =
      verdict === 'not-verified' || verdict === 'error' || verdict === 'unchanged' || raw.review === 'reject';
    const need = attention(cause, { state, report: reportExists, checkFailed });
    // A FAILED run is news for everyone; "needs you" when only the person can clear it. A run
    // that ends without a report leaves the person to read findings/ themselves.
    if (state === 'failed') return need?.only ? ['needs-you', 'failed'] : ['failed'];
    return need ? ['needs-you', 'done'] : ['done'];
  }
  // Paid overage stops the agent (an interrupt, not news: the wait that follows it is).
  if (action !== 'interrupt' && (raw.overage === true || cause === 'overage'))
    return action === 'wait' ? ['overage', 'waiting'] : ['overage'];
  if (action === 'wait')
    return raw.late === true || cause === 'report-late' ? ['report-late', 'waiting'] : ['waiting'];
  if (action === 'start' && RESTART_MODES.includes(String(raw.mode))) return ['restart'];
  // stop, pause and resume are the person's own doing; the rest is the supervisor's bookkeeping.
  return null;
}

/** The event for one line of the events log at byte `offset`, or null when it is not news. */
export function eventOf(raw: Record<string, unknown>, offset: number, run: RunFacts): NotifyEvent | null {
  const kinds = kindsOf(raw, run.report !== null);
  if (!kinds) return null;
  // Read back as untrusted: a state that is none, a time out of range are left out.
  const to = (RUN_STATES as readonly unknown[]).includes(raw.to) ? (raw.to as RunState) : 'waiting';
  const until = timeOf(raw.until) ? { until: raw.until as string } : {};
  const verify = verifyOf(raw);
  const review = reviewOfLine(raw);
  return {
    id: `${run.id}:${offset}`,
    event: kinds[0] as NotifyEventKind,
    kinds,
    run: run.id,
    state: to,
    reason: oneLine(typeof raw.reason === 'string' ? raw.reason : '', 300),
    at: timeOf(raw.at) ? (raw.at as string) : '',
    report: run.report,
    workspace: run.workspace,
    task: run.task === null ? null : oneLine(taskTitle(run.task), 120),
    ...until,
    ...(verify ? { verify } : {}),
    ...(review ? { review } : {}),
  };
}

/** What `overnight notify test` sends. */
export function testEvent(now: Date, root: string): NotifyEvent {
  return {
    id: `test:${now.getTime()}`,
    event: 'test',
    kinds: [],
    run: 'test',
    state: 'test',
    reason: 'a test from overnight notify test: this target works',
    at: now.toISOString(),
    report: null,
    workspace: root,
    task: null,
  };
}
