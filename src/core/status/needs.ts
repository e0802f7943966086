import type { RunState } from '../run/types.js';
import { attention, type Need } from '../supervise/attention.js';
import { causeOf } from '../supervise/legacy-cause.js';
import { LIVE_STATES } from '../supervise/live-states.js';

// Which runs need the person, and why in a few words: failed, waiting on a prompt, refused
// credentials, a report missing, paid extra usage going on, notifications not getting through.
// Decided by attention() from the row's cause code. Pure.

export interface NeedFacts {
  state: RunState;
  reason: string;
  /** The decision's code; rows cached before codes are read by their reason. */
  cause?: unknown;
  problem?: string;
  /** Whether REPORT.md exists; unknown (older cached rows) is judged by the cause. */
  report?: boolean;
  onOverage?: true;
  notifyFailing?: true;
  /** The check's verdict, for a run with one. */
  verify?: { verdict: string };
  /** The reviewer's verdict: `reject` needs the person, like a failed check. */
  review?: { verdict: string | null };
}

/** What the row needs from the person, as a code; null when nothing. */
export function needCode(r: NeedFacts): Need | null {
  const checkFailed =
    ['not-verified', 'error', 'unchanged'].includes(r.verify?.verdict ?? '') ||
    r.review?.verdict === 'reject';
  return attention(causeOf(r), { ...r, checkFailed })?.need ?? null;
}

export interface Summary {
  runs: number;
  counts: Partial<Record<RunState, number>>;
  needsYou: number;
}

export function summarize(rows: readonly NeedFacts[]): Summary {
  const counts: Partial<Record<RunState, number>> = {};
  for (const r of rows) counts[r.state] = (counts[r.state] ?? 0) + 1;
  return { runs: rows.length, counts, needsYou: rows.filter((r) => needCode(r) !== null).length };
}

const ORDER: readonly RunState[] = [
  'running',
  'synthesizing',
  'verifying',
  'waiting',
  'paused',
  'failed',
  'done',
];

/** `6 runs · 2 running · 1 waiting · 1 needs you · 2 done` (states with no run left out). */
export function summaryLine(s: Summary): string {
  const parts = [`${s.runs} ${s.runs === 1 ? 'run' : 'runs'}`];
  for (const state of ORDER) {
    const n = s.counts[state] ?? 0;
    if (n > 0 && state !== 'failed' && state !== 'done') parts.push(`${n} ${state}`);
  }
  if (s.needsYou > 0) parts.push(`${s.needsYou} ${s.needsYou === 1 ? 'needs' : 'need'} you`);
  for (const state of ['failed', 'done'] as const) {
    const n = s.counts[state] ?? 0;
    if (n > 0) parts.push(`${n} ${state}`);
  }
  return parts.join(' · ');
}

export interface Ordered<R> {
  /** Needs the person first, then live runs, then the finished ones that need nothing. */
  rows: R[];
  /** Finished runs that need nothing, left out of `rows` when collapsed. */
  collapsed: number;
}

/**
 * Rows in the table's order, each group by start time (runs never started last, by id); finished
 * runs that need nothing and that `collapse` picks are only counted.
 */
export function orderRows<R extends NeedFacts & { id: string; startedAt?: string | null }>(
  rows: readonly R[],
  collapse: (row: R) => boolean = () => false,
): Ordered<R> {
  const group = (r: R) => (needCode(r) ? 0 : LIVE_STATES.includes(r.state) ? 1 : 2);
  const start = (r: R) => (r.startedAt ? new Date(r.startedAt).getTime() : Number.MAX_SAFE_INTEGER);
  const sorted = [...rows].sort(
    (a, b) => group(a) - group(b) || start(a) - start(b) || a.id.localeCompare(b.id),
  );
  const kept = sorted.filter((r) => group(r) < 2 || !collapse(r));
  return { rows: kept, collapsed: sorted.length - kept.length };
}
