import { readdirSync, statSync } from 'node:fs';

import { mtime } from '../adapters/files.js';
import { readTextInside } from '../adapters/inside.js';
import {
  readExitRecord,
  readRestarts,
  readSentinel,
  readSession,
  readSessionLogs,
  readSpec,
  readTail,
} from '../adapters/store.js';
import {
  parseQuestions,
  QUESTIONS_MAX_BYTES,
  rankQuestions,
  type Question,
} from '../core/agent/questions.js';
import type { SessionLog } from '../core/agent/stream.js';
import { SESSION_MAX } from '../core/run/bounds.js';
import { parseEvents } from '../core/run/events.js';
import type { RunPaths } from '../core/run/paths.js';
import type { ExitRecord, RunState, SessionRecord } from '../core/run/types.js';
import { sessionNotes, type SessionNote } from '../core/status/log-notes.js';
import type { FindingFile } from '../core/status/story-text.js';
import { buildTimeline, type TimelineEntry } from '../core/status/timeline.js';
import { hasAgent } from '../core/supervise/live-states.js';
import { FINDINGS_DEPTH } from './rows.js';

// One run's story gathered from its files: the timeline and the questions. The judgement is
// pure (core/status/timeline.ts, core/agent/questions.ts); this only reads, and a file that
// cannot be read leaves its part of the story out rather than the whole story.

export interface Story {
  timeline: TimelineEntry[];
  /** Every question of questions.md, open ones first, highest priority first. */
  questions: Question[];
}

/** What the run's status row already knows. */
export interface StoryRow {
  state: RunState;
  startedAt: string | null;
  maxRestarts: number | null;
  /** A paused run's agent still runs. */
  agentRunning?: boolean;
}

/** How much of events.jsonl's end the story reads. */
const EVENTS_MAX_BYTES = 8 * 1024 * 1024;

function attempt<T>(read: () => T, otherwise: T): T {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

export function readQuestions(paths: RunPaths): Question[] {
  return rankQuestions(
    attempt(
      () => parseQuestions(readTextInside(paths.workspace, paths.questions, QUESTIONS_MAX_BYTES) ?? ''),
      [],
    ),
  );
}

export function readStory(paths: RunPaths, row: StoryRow): Story {
  // The log's end, bounded: a night's events are far less; a cut first line is skipped as torn.
  const events = parseEvents(readTail(paths.events, EVENTS_MAX_BYTES));
  const sessions: SessionLog[] = attempt(() => readSessionLogs(paths), []);
  const current: SessionRecord | null = attempt(() => readSession(paths), null);
  // One exit record per session the run has had: a handful of small files.
  const last = Math.min(SESSION_MAX, Math.max(current?.n ?? 0, ...sessions.map((s) => s.n ?? 0)));
  const exits = new Map<number, ExitRecord>();
  for (let n = 1; n <= last; n++) {
    const exit = attempt(() => readExitRecord(paths, n), null);
    if (exit) exits.set(n, exit);
  }
  const sentinel = attempt(() => readSentinel(paths), null);
  const sentinelAt = sentinel ? mtime(sentinel.kind === 'DONE' ? paths.done : paths.failed) : null;
  const startedAt = row.startedAt ? new Date(row.startedAt) : (events[0]?.at ?? current?.startedAt ?? null);
  const timeline = startedAt
    ? buildTimeline({
        startedAt,
        maxRestarts: row.maxRestarts ?? 0,
        events,
        restarts: attempt(() => readRestarts(paths), []),
        sessions,
        exits,
        current,
        live: hasAgent(row.state) || row.agentRunning === true,
        paused: row.state === 'paused',
        sentinel: sentinel && { ...sentinel, at: sentinelAt },
      })
    : [];
  return { timeline, questions: readQuestions(paths) };
}

/** The `n` newest files under findings/ (hidden ones aside), newest first. */
export function newestFindings(dir: string, n: number): FindingFile[] {
  const found: FindingFile[] = [];
  const walk = (sub: string, depth = 0) => {
    if (depth > FINDINGS_DEPTH) return;
    let entries;
    try {
      entries = readdirSync(`${dir}/${sub}`, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel, depth + 1);
      else if (e.isFile()) {
        const at = attempt(() => statSync(`${dir}/${rel}`).mtime, null);
        if (at) found.push({ path: rel, modifiedAt: at });
      }
    }
  };
  walk('');
  return found.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime()).slice(0, n);
}

/**
 * What `logs` says around each session: why it started, how it ended without a result. Returns a
 * reader to call again when a new session appears (logs -f).
 */
export async function logNotes(paths: RunPaths): Promise<() => Map<number, SessionNote>> {
  const spec = await readSpec(paths).catch(() => null);
  return () => {
    const finished = attempt(() => readSentinel(paths), null) !== null;
    const row: StoryRow = {
      state: finished ? 'done' : 'running',
      startedAt: spec?.startedAt.toISOString() ?? null,
      maxRestarts: spec?.limits.maxRestarts ?? null,
    };
    return sessionNotes(readStory(paths, row).timeline);
  };
}
