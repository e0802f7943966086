import { formatDuration } from '../config/duration.js';
import type { RunState } from '../run/types.js';
import type { Cause } from '../supervise/causes.js';

// What the dashboard's cells say (the board, core/status/board.ts, lays them out). Pure.

export interface TableRow {
  id: string;
  state: RunState;
  endsAt: string | null;
  restarts: number;
  maxRestarts: number | null;
  findings: number;
  questions: number;
  lastOutputAt: string | null;
  reason: string;
  costUsd?: number;
  permissionDenials?: { count: number; tools: { name: string; count: number }[] };
  /** A file of the run that could not be used; the run is skipped by reconcile until fixed. */
  problem?: string;
  /** Things the user should know even while the run goes on. */
  warnings?: string[];
  /** The check's verdict, for a run with one (`--verify`): ✓ or ✗ beside the state. */
  verify?: { verdict: string; basis?: string | null };
  /** The run this one follows up (`overnight continue`), and the one that follows it up. */
  continues?: string;
  continuedBy?: string;
  startedAt?: string | null;
  /** The task's first line. */
  task?: string | null;
  /** Whether REPORT.md exists (rows cached before it was recorded leave it out). */
  report?: boolean;
  /** What a live run is doing now when it is not plain work (API retries, the hang watch). */
  doing?: string[];
  /** The code of the decision the run is in (causes.ts); rows cached before codes leave it out. */
  cause?: Cause;
  /** A live run billing paid extra usage it is allowed. */
  onOverage?: true;
  /** Notifications about the run are not getting through. */
  notifyFailing?: true;
}

const FINISHED: readonly RunState[] = ['done', 'failed'];

export function timeLeft(row: TableRow, now: Date): string {
  if (FINISHED.includes(row.state) || !row.endsAt) return '-';
  const left = (new Date(row.endsAt).getTime() - now.getTime()) / 1000;
  return left > 0 ? formatDuration(left) : 'ended';
}

export { money } from '../text.js';

export function ago(at: Date | string | null, now: Date): string {
  if (!at) return 'never';
  const seconds = (now.getTime() - new Date(at).getTime()) / 1000;
  return seconds < 1 ? 'just now' : `${formatDuration(seconds)} ago`;
}

/** A run whose agent keeps being refused achieves nothing quietly: say so, and which tools. */
export function deniedLine(denied: { count: number; tools: { name: string; count: number }[] }): string {
  const top = denied.tools
    .slice(0, 3)
    .map((t) => `${t.name} ${t.count}`)
    .join(', ');
  const s = denied.count === 1 ? '' : 's';
  return (
    `${denied.count} tool call${s} denied by permissions (${top}); ` +
    'if the agent needs them, allow them: --allowed-tools for a new run, allowed_tools in config.yaml ' +
    "for every run, or this run's run.yaml for its next session"
  );
}
