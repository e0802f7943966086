import type { RunEvent } from '../run/events.js';
import type { ExitRecord, RestartEntry, SessionRecord } from '../run/types.js';
import type { SessionEnd, SessionFacts } from './session-end.js';

// The timeline's values: what buildTimeline (timeline.ts) makes of a run's records.

export interface SessionEntry {
  at: Date;
  kind: 'session';
  session: number;
  /** initial, resume, continue, retry or synthesis. */
  mode: string;
  /** Why it started: the reason recorded when it was started. */
  why: string;
  /** For a resume after a crash: which restart it was, of how many allowed. */
  restart?: { count: number; max: number };
  /** Why it began a fresh conversation instead of resuming. */
  fresh?: string;
  endedAt: Date | null;
  /** How long it ran (so far, for a live one: null). */
  seconds: number | null;
  /** What it cost, when its result said. */
  costUsd: number | null;
  apiRetries: number;
  end: SessionEnd;
}

export type WaitFor = 'limit' | 'overage' | 'backoff' | 'other';

export type TimelineEntry =
  | SessionEntry
  | { at: Date; kind: 'wait'; for: WaitFor; until: Date; resetsAt?: Date; reason: string }
  | { at: Date; kind: 'hang'; stage: 'watched' | 'stopped'; session: number | null; reason: string }
  | {
      at: Date;
      kind: 'interrupt';
      by: 'end-time' | 'user' | 'overnight';
      session: number | null;
      reason: string;
    }
  | { at: Date; kind: 'pause' | 'unpause'; reason: string }
  /** `count`: the same warning said this many times in all (absent: once). */
  | { at: Date; kind: 'warning'; session: number | null; text: string; count?: number }
  | { at: Date; kind: 'finish'; outcome: 'DONE' | 'FAILED'; reason: string; totalSeconds: number };

/** One run's records, as narrow as the timeline needs (newer fields elsewhere do not matter here). */
export interface TimelineInput {
  startedAt: Date;
  maxRestarts: number;
  events: readonly RunEvent[];
  /** restart.log: the reason a session started when events.jsonl has no line for it. */
  restarts: readonly RestartEntry[];
  /** Each session's part of output.log. */
  sessions: readonly SessionFacts[];
  exits: ReadonlyMap<number, ExitRecord>;
  current: SessionRecord | null;
  /** The current session's agent is alive now. */
  live: boolean;
  /** The run is paused (its live agent goes on; nothing is restarted). */
  paused?: boolean;
  sentinel: { kind: 'DONE' | 'FAILED'; reason: string; at: Date | null } | null;
}
