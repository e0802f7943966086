// Plain values shared by the pure core and the adapters. No I/O here.
import type { Limit } from '../supervise/limits.js';

export const RUN_STATES = ['running', 'waiting', 'synthesizing', 'done', 'failed', 'paused'] as const;
export type RunState = (typeof RUN_STATES)[number];

/** Limits and thresholds of one run, all durations in seconds. */
export interface Limits {
  maxRestarts: number;
  synthesisBudget: number;
  staleAfter: number;
  hangGrace: number;
  backoff: number;
  backoffMax: number;
  healthyAfter: number;
  minUptime: number;
  /** Added to a usage limit's stated reset time, which lags reality. */
  limitMargin: number;
  /** Bytes: a larger transcript is archived and the run goes on in a fresh session. */
  maxTranscript: number;
  /** After SIGINT, how long the agent has to stop before SIGTERM (and half that again before SIGKILL). */
  stopGrace: number;
}

/** run.yaml: what launch decided, written by the supervisor alone. */
export interface RunSpec {
  id: string;
  task: string;
  model: string | null;
  startedAt: Date;
  endsAt: Date;
  sessionId: string;
  permissionMode: string;
  allowedTools: string[];
  limits: Limits;
  /** Spend cap for the whole run in USD, or null for none. */
  maxCost: number | null;
  /**
   * Absolute paths resolved at launch, so a scheduler's PATH does not matter; the tmux socket too,
   * so a pass from cron (without the launching shell's TMUX_TMPDIR) talks to the same server.
   */
  paths: { claude: string; tmux: string; node: string; cli: string; tmuxSocket: string | null };
}

/**
 * How a session came to be. `resume` follows a crash and is what the circuit breaker counts;
 * `continue` follows a clean exit with time left or a lifted usage limit; `retry` follows a
 * refused login (counted on its own); `initial` and `synthesis` are not restarts.
 */
export type SessionMode = 'initial' | 'resume' | 'continue' | 'retry' | 'synthesis';

/** The current session's record, written before the session is started. */
export interface SessionRecord {
  n: number;
  mode: SessionMode;
  startedAt: Date;
}

export interface RestartEntry {
  at: Date;
  mode: SessionMode;
  exit: number | null;
  /** Seconds the session before this restart ran, when known. */
  uptime: number | null;
  reason: string;
}

export interface ExitRecord {
  /** Exit status as the shell reports it: 128 + signal number for a signal. */
  code: number;
  at: Date;
}

export interface Sentinel {
  kind: 'DONE' | 'FAILED';
  reason: string;
}

/** Everything decide needs to know about one run, read from disk and the process table. */
export interface Observation {
  sentinel: Sentinel | null;
  paused: boolean;
  session: SessionRecord | null;
  /** The current session's agent process exists with the recorded start time. */
  agentAlive: boolean;
  /** The tmux pane holding the wrapper still runs (the agent may be starting or just ended). */
  wrapperAlive: boolean;
  exit: ExitRecord | null;
  restarts: RestartEntry[];
  reportExists: boolean;
  outputAt: Date | null;
  /** When the current session's silence was first seen by a pass (the hang timer, kept on disk). */
  staleSince: Date | null;
  /** A question the live agent's output ends with that nobody will answer, if any. */
  promptSeen: string | null;
  /** The current session was stopped as hung. */
  hung: boolean;
  /** What the sessions cost so far (USD), from their result events; read when the agent is not alive. */
  costUsd: number;
  /** Size of the run conversation's transcript; null when there is none. Read when the agent is not alive. */
  transcriptBytes: number | null;
  /** Resumed sessions in a row, the current one last, that ended without any work or success. */
  failedResumes: number;
  /** Sessions in a row, the current one last, that ended on refused credentials. */
  authFailures: number;
  /** The usage limit the current session ended on, if any; read when the agent is not alive. */
  limit: Limit | null;
  /** The conversation the current session's init event named, if any; read when the agent is not alive. */
  conversation: string | null;
  /** The current session's result event, if it wrote one; read when the agent is not alive. */
  result: { isError: boolean; subtype: string; text: string; apiErrorStatus?: number | null } | null;
}

export type Action =
  | { kind: 'none'; reason: string }
  | { kind: 'cleanup'; reason: string }
  | {
      kind: 'start';
      mode: SessionMode;
      reason: string;
      exit: number | null;
      uptime?: number | null;
      fresh?: string;
    }
  | { kind: 'wait'; until: Date; reason: string }
  | { kind: 'interrupt'; reason: string; hung?: boolean }
  | { kind: 'watch'; reason: string }
  | { kind: 'finish'; sentinel: Sentinel['kind']; reason: string; stopAgent: boolean };
