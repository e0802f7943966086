import type { Question } from '../agent/questions.js';
import type { RunState } from '../run/types.js';
import type { TimelineEntry } from '../status/timeline.js';
import type { Cause } from '../supervise/causes.js';

// The morning digest as plain values: what read/digest.ts gathers and the renderers print.

export interface DigestRun {
  id: string;
  /** The check's verdict and its line ("verified: 12 passed, 0 new failures"), for a run with one. */
  verify?: { verdict: string; line: string; tests?: string };
  /** The reviewer's verdict (null: it did not finish) and its line. */
  review?: { verdict: string | null; line: string };
  task: string | null;
  state: RunState;
  /** Why it is in its state (the sentinel's reason for a finished run). */
  reason: string;
  costUsd: number;
  startedAt: Date | null;
  endsAt: Date | null;
  workspace: string;
  /** REPORT.md and its first lines, when there is one. */
  report: { path: string; head: string[] } | null;
  findings: number;
  restarts: number;
  maxRestarts: number | null;
  timeline: TimelineEntry[];
  /** Every question, open ones first, highest priority first. */
  questions: Question[];
  /** The code of the decision the run is in (causes.ts); absent for rows cached before codes. */
  cause?: Cause;
  /** A live run billing paid extra usage it is allowed; notifications about it failing. */
  onOverage?: true;
  notifyFailing?: true;
  /** A file of the run that cannot be used. */
  problem?: string;
  warnings?: string[];
  /** The night this run follows up (`overnight continue`), and the one following it up. */
  continues?: string;
  continuedBy?: string;
}

export interface Digest {
  /** When it was made; live runs' timelines run up to here. */
  now: Date;
  since: Date;
  /** How the window was asked for, e.g. `24h`. */
  window: string;
  runs: DigestRun[];
}
