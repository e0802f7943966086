import type {
  ExitRecord,
  RestartEntry,
  RunSpec,
  Sentinel,
  SessionMode,
  SessionRecord,
} from '../../src/core/run/types.js';
import type { TableRow } from '../../src/core/status/table.js';
import { limitJitter } from '../../src/core/supervise/jitter.js';
import { legacyCause } from '../../src/core/supervise/legacy-cause.js';
import type { Limit } from '../../src/core/supervise/limits.js';
import type {
  AgentNotRunning,
  Observation,
  ObservedSession,
  ResultFacts,
  RunningAgent,
} from '../../src/core/supervise/types.js';

// Values for the pure core's table tests: a night from 23:15 to 07:15 (UTC), default limits.

export const STARTED = new Date('2026-11-21T23:15:00Z');
export const ENDS = new Date('2026-11-22T07:15:00Z');

export function spec(over: Partial<RunSpec> = {}): RunSpec {
  return {
    id: '2026-11-21-2315-survey-crdt',
    task: 'Survey CRDT libraries for offline sync',
    name: null,
    repo: null,
    model: null,
    startedAt: STARTED,
    endsAt: ENDS,
    sessionId: '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a',
    permissionMode: 'acceptEdits',
    allowedTools: ['Read', 'Write'],
    limits: {
      maxRestarts: 5,
      synthesisBudget: 1800,
      staleAfter: 1800,
      hangGrace: 300,
      backoff: 30,
      backoffMax: 600,
      healthyAfter: 600,
      minUptime: 60,
      limitMargin: 300,
      maxTranscript: 256 * 1024 * 1024,
      stopGrace: 10,
      transientMax: 7200,
      lateReport: 21600,
    },
    maxCost: null,
    allowOverage: false,
    fallbackModel: null,
    backend: 'tmux',
    paths: {
      claude: '/usr/bin/claude',
      tmux: '/usr/bin/tmux',
      node: '/usr/bin/node',
      cli: '/opt/overnight/bin/overnight.js',
      tmuxSocket: null,
    },
    ...over,
  };
}

/** A repository run's facts, as launch records them. */
export const REPO = {
  path: '/home/me/proj',
  base: '48e2c9b682eeb5c2fbfa0162f3c48ed82f8d8c05',
  branch: 'overnight/2026-11-21-2315-survey-crdt',
  worktree: '/home/me/overnight-runs/worktrees/2026-11-21-2315-survey-crdt',
};
export const RUN_DIR = '/home/me/overnight-runs/2026-11-21-2315-survey-crdt';

/** The agent of a session, running. */
export function running(
  record: SessionRecord = session(),
  over: Partial<RunningAgent> = {},
): ObservedSession {
  return { ...record, agent: { running: true, promptSeen: null, staleSince: null, ...over } };
}

/** The agent of a session, not running: by default gone with nothing recorded about its end. */
export function ended(
  record: SessionRecord = session(),
  over: Partial<AgentNotRunning> = {},
): ObservedSession {
  return {
    ...record,
    agent: {
      running: false,
      wrapperAlive: false,
      started: true,
      exit: null,
      hung: false,
      result: null,
      limit: null,
      authFailures: 0,
      failedResumes: 0,
      apiTroubles: { count: 0, since: null },
      conversation: null,
      costUsd: 0,
      transcriptBytes: 1000,
      ...over,
    },
  };
}

/** By default: the first session's agent is gone, nothing recorded about its end. */
export function observation(over: Partial<Observation> = {}): Observation {
  return {
    sentinel: null,
    paused: false,
    session: ended(),
    restarts: [],
    reportExists: false,
    outputAt: null,
    ...over,
  };
}

// decide's tables: times of that night, sessions, exits and restart.log lines.

export const BEFORE_END = new Date('2026-11-22T03:00:00Z');
export const AFTER_END = new Date('2026-11-22T07:20:00Z');
// synthesis_budget is 30m by default: the synthesis may run until 07:45.
export const BUDGET_END = new Date('2026-11-22T07:45:00Z');
export const AFTER_BUDGET = new Date('2026-11-22T08:00:00Z');

export function session(mode: SessionMode = 'initial', n = 1): SessionRecord {
  return { n, mode, startedAt: STARTED };
}

/** A time of the night's morning (2026-11-22, UTC): at('03:05'), at('02:35:01'). */
export function at(time: string): Date {
  return new Date(`2026-11-22T${time}Z`);
}

/** The agent's exit record: by default written a minute before BEFORE_END. */
export function exited(code: number, when: Date = at('02:59')): ExitRecord {
  return { code, at: when };
}

/**
 * restart.log lines, one per mode, a minute apart from `from`; each after a session of `uptime`
 * seconds that exited 1.
 */
export function restarts(
  modes: SessionMode[],
  { from = at('00:00'), uptime = 3600, reason = 'agent ended (exit 1)' } = {},
): RestartEntry[] {
  return modes.map((mode, i) => ({
    at: new Date(from.getTime() + i * 60_000),
    mode,
    exit: 1,
    uptime,
    reason,
  }));
}

export const crashes = (n: number): SessionMode[] => Array<SessionMode>(n).fill('resume');

export const done = (reason: string): Sentinel => ({ kind: 'DONE', reason, cause: legacyCause(reason) });
export const failed = (reason: string): Sentinel => ({
  kind: 'FAILED',
  reason,
  cause: legacyCause(reason),
});

/** A session's result event that reported an error (the default subtype, as the CLI writes it). */
export function errorResult(text: string, over: Partial<ResultFacts> = {}): ResultFacts {
  return { isError: true, subtype: 'success', text, ...over };
}

/** A session's result event without an error: it stopped by itself. */
export function cleanResult(text: string): ResultFacts {
  return { isError: false, subtype: 'success', text };
}

/** A usage limit that lifts at `resetsAt` (null: no readable time). */
export function waitLimit(resetsAt: Date | null, what = 'five_hour limit'): Limit {
  return { kind: 'wait', resetsAt, what };
}

/**
 * When the default spec's run starts again after a limit that resets at `resetsAt`: the reset,
 * limit_margin (5m) and the run's jitter (see jitter.ts; 0 to 5m).
 */
export function afterLimit(resetsAt: Date): Date {
  const margin = spec().limits.limitMargin;
  return new Date(resetsAt.getTime() + (margin + limitJitter(spec().id, resetsAt, margin)) * 1000);
}

/** A usage limit that no wait lifts. */
export function hardLimit(what: string): Limit {
  return { kind: 'hard', what };
}

/** A row of the status table: a run started at 23:15, running, with its findings and a question. */
export function tableRow(over: Partial<TableRow> = {}): TableRow {
  return {
    id: '2026-11-21-2315-survey-crdt',
    state: 'running',
    startedAt: '2026-11-21T23:15:00.000Z',
    endsAt: '2026-11-22T09:15:00.000Z',
    restarts: 0,
    maxRestarts: 5,
    findings: 3,
    questions: 1,
    lastOutputAt: '2026-11-22T07:55:00.000Z',
    reason: '',
    task: 'Survey CRDT libraries',
    report: false,
    ...over,
  };
}
