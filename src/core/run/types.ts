import type { ReviewSpec } from '../review/types.js';
import type { SandboxSpec } from '../sandbox/policy.js';
import type { Cause } from '../supervise/causes.js';
import type { VerifySpec } from '../verify/types.js';
import type { BackendName } from './backend.js';

// A run's records as plain values: its spec (run.yaml), sessions, restarts, exits, sentinels.

export const RUN_STATES = [
  'running',
  'waiting',
  'verifying',
  'synthesizing',
  'done',
  'failed',
  'paused',
] as const;
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
  /** How long transient API trouble (429 not a usage limit, 529, 5xx) is waited out before the run fails. */
  transientMax: number;
  /** How long after the end time a report may still be written once a usage limit lifts. */
  lateReport: number;
}

/** A run on a git repository: the agent works in a worktree on a branch of the run's own. */
export interface RepoSpec {
  /** The repository's top directory (the person's checkout, never touched). */
  path: string;
  /** The commit the branch was made from (a full hash). */
  base: string;
  branch: string;
  /** A worktree of `path` on `branch`: the agent works there (or in `subdir` of it). */
  worktree: string;
  /**
   * Where below the repository's top the agent starts (`--repo ~/src/app/lib`: `lib`), relative and
   * inside it; absent for the top itself. The same directory in the worktree is the agent's.
   */
  subdir?: string;
  /**
   * The worktree's git dir (`<repository's .git>/worktrees/<name>`), recorded when overnight made
   * it: git is pointed there, never through the worktree's `.git`. Absent for runs made before.
   */
  gitDir?: string;
}

/** run.yaml: what launch decided, written by the supervisor alone. */
export interface RunSpec {
  id: string;
  task: string;
  /** The `--name` given at launch, as given (a handle for the run); null when none was. */
  name: string | null;
  /** null for a run in its own fresh workspace. */
  repo: RepoSpec | null;
  model: string | null;
  startedAt: Date;
  endsAt: Date;
  sessionId: string;
  permissionMode: string;
  allowedTools: string[];
  limits: Limits;
  /** Spend cap for the whole run in USD, or null for none. */
  maxCost: number | null;
  /** Keep working on paid extra usage (false: stop and wait for the window to reset). */
  allowOverage: boolean;
  /** Passed to every session as --fallback-model; null for none. */
  fallbackModel: string | null;
  /** The check the run is verified by (`launch --verify`); absent for a run without one. */
  verify?: VerifySpec;
  /** A reviewer with fresh eyes after the final check (`launch --review`); absent for none. */
  review?: ReviewSpec;
  /** The finished run this one follows up (`overnight continue`), when it does. */
  continues?: string;
  /** How its sessions run (runs recorded before backends existed ran in tmux). */
  backend: BackendName;
  /**
   * The sandbox the agent's commands (and the check) run in; absent for a run without one (turned
   * off, not available at launch, or recorded before sandboxes): its agent then has no Bash by default.
   */
  sandbox?: SandboxSpec;
  /**
   * Absolute paths resolved at launch, so a scheduler's PATH does not matter; the tmux socket too,
   * so a pass from cron (without the launching shell's TMUX_TMPDIR) talks to the same server.
   * tmux is null for a detached run launched where there is none.
   */
  paths: {
    claude: string;
    tmux: string | null;
    node: string;
    cli: string;
    tmuxSocket: string | null;
    /** bubblewrap, which confines the check; null where it is not used. */
    bwrap?: string | null;
  };
}

/**
 * How a session came to be. `resume` follows a crash and is what the circuit breaker counts;
 * `continue` follows a clean exit with time left or a lifted usage limit; `retry` follows a
 * refused login (counted on its own); `fix` is the one session after a failing check, within
 * verify_budget; `initial`, `fix` and `synthesis` are not restarts.
 */
export type SessionMode = 'initial' | 'resume' | 'continue' | 'retry' | 'fix' | 'synthesis';

/** The current session's record, written before the session is started. */
export interface SessionRecord {
  n: number;
  mode: SessionMode;
  startedAt: Date;
  /** A new conversation (`--session-id`), not a resume: a session started again must be the same. */
  fresh?: boolean;
  /** A follow-up's first session, resuming the earlier night's conversation (`--fork-session`). */
  forked?: boolean;
  /**
   * When this synthesis must be done by, when not the end time plus synthesis_budget: a report
   * written late, once a usage limit lifted after that (within late_report). For a fix session:
   * the end of verify_budget.
   */
  deadline?: Date;
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
  /** The decision's code (its second line; for older runs read from the reason by legacyCause). */
  cause: Cause;
}
