import { TEXT_MAX, timeOf } from '../run/bounds.js';
import { RUN_STATES, type RunState } from '../run/types.js';
import { oneLine } from '../text.js';
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
}

/** What a line alone does not say. */
export interface RunFacts {
  id: string;
  workspace: string;
  report: string | null;
  task: string | null;
}

/*
 * A FAILED run needs the person when only they can fix what stopped it; the reasons are decide's
 * (core/supervise/ended.ts and decide.ts), kept in step by the unit tests that feed them through.
 * A circuit breaker or a spend cap is a plain failure: the night went wrong, nothing is to be set.
 */
const NEEDS_YOU_FAILURES: readonly RegExp[] = [
  /^authentication failed/, // a token only the person can renew
  /waiting for input nobody will give/, // a prompt: trust, permissions, a question
  /^usage limit that waiting will not lift/, // an admin, org or spend limit, no credit
  /; no restart can fix that: /, // an account on hold, a model it lacks, cloud credentials
];

/*
 * Issue 10's transitions, matched on what they say. A late report waits with a reason such as
 * "report late: limit lifts at 08:05"; paid overage stops the agent (an interrupt, not news: the
 * wait that follows it is) or goes on with it allowed. Adjust here when their records settle.
 */
const REPORT_LATE = (line: Line) => line.late === true || /^report late\b/i.test(line.reason);
const OVERAGE = (line: Line) =>
  line.action !== 'interrupt' && (line.overage === true || /\boverage\b|extra usage/i.test(line.reason));

/** Sessions started after something went wrong; `continue` and the synthesis are the plan. */
const RESTART_MODES = ['resume', 'retry'];

interface Line {
  action: string;
  to: string;
  reason: string;
  mode?: unknown;
  late?: unknown;
  overage?: unknown;
}

/** The event names a transition answers to, most specific first; null when it is not news. */
export function kindsOf(raw: Record<string, unknown>, reportExists: boolean): NotifyEventKind[] | null {
  const line: Line = {
    ...raw,
    action: typeof raw.action === 'string' ? raw.action : '',
    to: typeof raw.to === 'string' ? raw.to : '',
    reason: typeof raw.reason === 'string' ? raw.reason.slice(0, TEXT_MAX) : '',
  };
  if (line.action === 'finish' && line.to === 'failed')
    return NEEDS_YOU_FAILURES.some((r) => r.test(line.reason)) ? ['needs-you', 'failed'] : ['failed'];
  // A run that ends without a report leaves the person to read findings/ themselves.
  if (line.action === 'finish' && line.to === 'done') return reportExists ? ['done'] : ['needs-you', 'done'];
  if (OVERAGE(line)) return line.action === 'wait' ? ['overage', 'waiting'] : ['overage'];
  if (line.action === 'wait') return REPORT_LATE(line) ? ['report-late', 'waiting'] : ['waiting'];
  if (line.action === 'start' && RESTART_MODES.includes(String(line.mode))) return ['restart'];
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
    task: run.task === null ? null : oneLine(run.task.split('\n')[0] ?? '', 120),
    ...until,
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
