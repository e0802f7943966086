import type { Cause } from '../supervise/causes.js';
import { causeOf } from '../supervise/legacy-cause.js';
import { intIn, sessionNumber, textOf, timeOf, wordOf } from './bounds.js';

// events.jsonl read back: one transition per line, as act, stop and pause record them. Tolerant:
// a torn or foreign line is skipped, unknown fields are ignored, so older and newer runs both read.
// Every field is bounded (core/run/bounds.ts): an event out of range is skipped, a field read as missing.

export interface RunEvent {
  at: Date;
  /** none, cleanup, start, wait, interrupt, watch, finish, stop, pause, resume, pin-model, … */
  action: string;
  from: string | null;
  to: string | null;
  reason: string;
  /** The decision's code; for lines written before codes, read from the reason (legacyCause). */
  cause: Cause;
  /** The session a start began. */
  session: number | null;
  mode: string | null;
  /** The exit status of the session before a start. */
  exit: number | null;
  /** When a wait ends, and when the usage limit it waits out lifts (recorded since the timeline). */
  until: Date | null;
  resetsAt: Date | null;
  /** How an interrupted agent was stopped (SIGINT, SIGTERM, SIGKILL, gone). */
  signal: string | null;
  /** An interrupt of a hung session (recorded since the timeline; older runs say so in the reason). */
  hung: boolean;
  /** Why a start began a fresh conversation. */
  fresh: string | null;
  /** wrong-conversation: the conversation a session ran, and the one it should have resumed. */
  conversation: string | null;
  expected: string | null;
}

export function parseEvent(line: string): RunEvent | null {
  let e: Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(line);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
    e = v as Record<string, unknown>;
  } catch {
    return null;
  }
  const at = timeOf(e.at);
  const action = wordOf(e.action);
  if (!at || !action) return null;
  return {
    at,
    action,
    from: wordOf(e.from),
    to: wordOf(e.to),
    reason: textOf(e.reason) ?? '',
    cause: causeOf(e),
    session: sessionNumber(e.session),
    mode: wordOf(e.mode),
    exit: intIn(e.exit, -1, 65535),
    until: timeOf(e.until),
    resetsAt: timeOf(e.resetsAt),
    signal: wordOf(e.signal),
    hung: e.hung === true,
    fresh: textOf(e.fresh),
    conversation: wordOf(e.conversation),
    expected: wordOf(e.expected),
  };
}

/** Every readable line of events.jsonl, in the order written. */
export function parseEvents(text: string): RunEvent[] {
  const out: RunEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const e = parseEvent(line);
    if (e) out.push(e);
  }
  return out;
}
