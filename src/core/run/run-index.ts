import { parseISO } from 'date-fns/parseISO';

import { parseDuration } from '../config/duration.js';
import { isRunId } from './naming.js';
import { RUN_STATES, type RunState } from './types.js';

// The runs root's index of finished runs, one JSON line each, appended when a run is verified
// finished: what `status` needs to pick recent runs without opening old ones. Pure.

export interface FinishedEntry {
  id: string;
  /** When the run was verified finished (appended in this order). */
  finishedAt: Date;
  state: 'done' | 'failed';
  /** A later line saying the run left the runs root (archived or removed). */
  removed?: boolean;
}

export function formatFinished(e: FinishedEntry): string {
  const removed = e.removed ? { removed: true } : {};
  return JSON.stringify({ id: e.id, finishedAt: e.finishedAt.toISOString(), state: e.state, ...removed });
}

/** A line of the index, or null for a torn or foreign one. */
export function parseFinished(line: string): FinishedEntry | null {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  const at = typeof v.finishedAt === 'string' ? new Date(v.finishedAt) : null;
  if (typeof v.id !== 'string' || !isRunId(v.id) || !at || Number.isNaN(at.getTime())) return null;
  if (v.state !== 'done' && v.state !== 'failed') return null;
  return { id: v.id, finishedAt: at, state: v.state, ...(v.removed === true ? { removed: true } : {}) };
}

/** Finished runs leave the dashboard's table after this long, unless --all or --since. */
export const RECENT_SECONDS = 3 * 24 * 3600;
/** Lines are appended in finishing order; this much disorder (a clock set back) is tolerated. */
export const ORDER_SLACK_SECONDS = 24 * 3600;

export interface RunFilter {
  /** Finished runs that finished before this are left out; null: none is (every finished run). */
  since: Date | null;
  /** Only runs in these states; null: every state. */
  states: RunState[] | null;
}

/**
 * `status` filters from its flags: the recent window by default for the table, everything for
 * --all and for --json without --since. An error names the bad value and what is accepted.
 */
export function runFilter(
  opts: { since?: string; state?: string; all?: boolean; json?: boolean },
  now: Date,
): RunFilter | { error: string } {
  let since: Date | null = opts.all || opts.json ? null : new Date(now.getTime() - RECENT_SECONDS * 1000);
  if (opts.since !== undefined) {
    const ago = parseDuration(opts.since);
    const at = ago !== undefined ? new Date(now.getTime() - ago * 1000) : sinceDate(opts.since);
    if (!at)
      return {
        error:
          `--since ${JSON.stringify(opts.since)} is neither a duration nor a date; ` +
          'give one such as 7d, 36h or 2026-11-20',
      };
    since = at;
  }
  let states: RunState[] | null = null;
  if (opts.state !== undefined) {
    const asked = opts.state.split(',').map((s) => s.trim().toLowerCase());
    const bad = asked.filter((s) => !RUN_STATES.includes(s as RunState));
    if (bad.length > 0 || asked.length === 0)
      return {
        error:
          `--state ${JSON.stringify(opts.state)} is not a state; ` +
          `give one or more of ${RUN_STATES.join(', ')}, separated by commas`,
      };
    states = asked as RunState[];
  }
  return { since, states };
}

function sinceDate(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return null;
  const at = parseISO(text.trim());
  return Number.isNaN(at.getTime()) ? null : at;
}

/**
 * Picks finished runs from the index read newest first: those finished since `since` (all when
 * null), minus those a later line removed. `more` says whether older ones were left unread.
 * Returns false from `take` when reading can stop.
 */
export class FinishedPicker {
  readonly ids: string[] = [];
  more = false;
  private readonly gone = new Set<string>();
  private readonly seen = new Set<string>();

  constructor(private readonly since: Date | null) {}

  take(line: string): boolean {
    const e = parseFinished(line);
    if (!e) return true;
    if (this.since && e.finishedAt.getTime() < this.since.getTime() - ORDER_SLACK_SECONDS * 1000) {
      this.more = true;
      return false;
    }
    if (e.removed) this.gone.add(e.id);
    else if (!this.gone.has(e.id) && !this.seen.has(e.id)) {
      this.seen.add(e.id);
      if (!this.since || e.finishedAt >= this.since) this.ids.push(e.id);
      else this.more = true;
    }
    return true;
  }
}
