import type { Review } from '../review/types.js';
import type { ExitRecord, RestartEntry, Sentinel, SessionMode, SessionRecord } from '../run/types.js';
import type { CheckStep, ObservedCheck, ObservedChecks } from '../verify/types.js';
import type { Cause } from './causes.js';
import type { Limit } from './limits.js';
import type { RuleId } from './rules.js';

// What decide sees of one run, and what it asks for. Plain values: observe builds them, act obeys.

/** Everything decide needs to know about one run, read from disk and the process table. */
export interface Observation {
  sentinel: Sentinel | null;
  paused: boolean;
  /** The current session and its agent; null before launch recorded a first one. */
  session: ObservedSession | null;
  restarts: RestartEntry[];
  reportExists: boolean;
  /** When output.log last changed. */
  outputAt: Date | null;
  /** A repository run whose worktree is no longer there: no session can start in it. */
  worktreeGone?: boolean;
  /** The steps of the run's check (`verify`), for a run with one. */
  checks?: ObservedChecks;
  /** The reviewer's step (`review`), and its review once it has ended. */
  review?: { step: ObservedCheck; review: Review | null };
  /** The current session's batch job, on a scheduler's backend (Slurm): for status. */
  job?: { id: number; node: string | null; state: string; restarts: number };
}

export interface ObservedSession extends SessionRecord {
  agent: RunningAgent | AgentNotRunning;
}

/** The session's agent process exists with the recorded start time. */
export interface RunningAgent {
  running: true;
  /** A question the quiet agent's output ends with that nobody will answer, if any. */
  promptSeen: string | null;
  /** When a pass first saw this session silent (the hang timer, kept on disk). */
  staleSince: Date | null;
  /** Its wrapper recorded itself and is gone (killed): nobody will record this agent's end. */
  wrapperGone?: boolean;
  /**
   * The session is spending paid extra usage (its latest rate_limit_event says so): since when,
   * and when the subscription window resets. Read only when the run does not allow overage.
   */
  overage?: { since: Date | null; resetsAt: Date | null; window: string | null } | null;
}

/**
 * No agent process: it ended, or the wrapper is still starting it. Everything but `wrapperAlive`
 * is read from what the session left behind, and only known once it is over.
 */
export interface AgentNotRunning {
  running: false;
  /** The tmux pane holding the wrapper still runs (the agent may be starting or just ended). */
  wrapperAlive: boolean;
  /**
   * The wrapper recorded itself and its process is gone: its exit record, if it wrote one, is
   * already on disk (so no exit race to wait out). Absent where that is not known.
   */
  wrapperGone?: boolean;
  /** The session's agent recorded itself (it does so before it starts): false for one that never ran. */
  started: boolean;
  exit: ExitRecord | null;
  /** overnight stopped this session as hung. */
  hung: boolean;
  /** The scheduler ended the session's job itself (Slurm: its time limit, a cancel, the node lost). */
  endedBy?: 'time-limit' | 'cancelled' | 'node-failure' | 'out-of-memory' | 'other' | null;
  /** The session's result event, if it wrote one. */
  result: ResultFacts | null;
  /** The usage limit the session ended on, if any. */
  limit: Limit | null;
  /** Sessions in a row, this one last, that ended on refused credentials. */
  authFailures: number;
  /** The CLI's typed cause of the error the session ended on (`account_on_hold`, …), if it gave one. */
  errorType?: string | null;
  /** The last line the session printed that was not stream-json (a stack trace's end), if any. */
  lastWords?: string | null;
  /** Resumed sessions in a row, this one last, that ended without any work or success. */
  failedResumes: number;
  /** Sessions in a row, this one last, that ended on API trouble (429, 529, 5xx), and since when. */
  apiTroubles: { count: number; since: Date | null };
  /** The conversation the session's init event named, if any. */
  conversation: string | null;
  /** What the run's sessions cost so far (USD), from their result events. */
  costUsd: number;
  /** Size of the run conversation's transcript; null when there is none. */
  transcriptBytes: number | null;
}

/** What a session's result event said, as decide needs it. */
export interface ResultFacts {
  isError: boolean;
  subtype: string;
  text: string;
  apiErrorStatus?: number | null;
  apiErrorType?: string | null;
  apiError?: string | null;
}

/**
 * Times are values: turning them into clock text is the printer's job (see describe.ts). `cause`
 * is the decision as a code (causes.ts), `reason` the same for a person: nothing parses the reason.
 */
export type Action = ActionKind & {
  /** The rule of decide that chose it (rules.ts): its number, for the walk and the tests. */
  rule?: RuleId;
};

type ActionKind =
  | { kind: 'none'; cause: Cause; reason: string }
  | { kind: 'cleanup'; cause: Cause; reason: string }
  | {
      kind: 'start';
      cause: Cause;
      mode: SessionMode;
      reason: string;
      exit: number | null;
      uptime?: number | null;
      fresh?: string;
      /** The recorded session never started an agent (tmux refused it): started as it was recorded. */
      again?: boolean;
      /** A synthesis started late (after a usage limit): when it must be done by. */
      deadline?: Date;
    }
  /**
   * `resetsAt`: the usage limit waited out lifts then (the wait adds limit_margin); `late`: only
   * after the synthesis budget, so the report comes late.
   */
  | { kind: 'wait'; cause: Cause; until: Date; reason: string; resetsAt?: Date; late?: boolean }
  | { kind: 'interrupt'; cause: Cause; reason: string; hung?: boolean }
  | { kind: 'watch'; cause: Cause; reason: string }
  | { kind: 'finish'; cause: Cause; sentinel: Sentinel['kind']; reason: string; stopAgent: boolean }
  /** Start a step of the run's check (`again`: its process was lost); see verify.ts. */
  | { kind: 'check'; cause: Cause; step: CheckStep; reason: string; again?: boolean }
  /** Kill a check step that ran past verify_timeout. */
  | { kind: 'stop-check'; cause: Cause; step: CheckStep; reason: string };
