import type { BackendName } from '../../core/run/backend.js';
import type { RunPaths } from '../../core/run/paths.js';
import type { SessionRecord } from '../../core/run/types.js';
import type { JobView } from '../../core/slurm/view.js';
import type { StopGrace } from '../processes.js';

// The seam between the supervisor and whatever runs a session: tmux, a detached process group,
// and later a batch scheduler. A pass reads only what `observe` says; `decide` never sees a backend.

/** One run's session, named by the run (a backend derives its own names from the id). */
export interface SessionRef {
  id: string;
  paths: RunPaths;
}

/** What a backend sees of a run's session: the wrapper, not the agent (its records say that). */
export interface SessionView {
  /** The wrapper is still running (it may be starting the agent, or recording its end). */
  alive: boolean;
  /** Where it runs (a host name), when the backend knows; null when nothing runs. */
  where: string | null;
  /** How the wrapper itself ended, when the backend knows (a scheduler does; tmux does not). */
  exit?: number | null;
  /** A scheduler's job for the session (Slurm): its id, node, state and requeues. */
  job?: JobView;
}

export interface Backend {
  readonly name: BackendName;
  /**
   * Set when observing costs a call per pass (tmux, a scheduler): a pass lists once under this key
   * and reads every run's view from that list; null when `observe` is cheap for one run.
   */
  readonly listKey: string | null;
  /**
   * Sessions may run on other machines (a scheduler's nodes): the agent's liveness is read from
   * the wrapper's records and the backend's view, never from this machine's process table.
   */
  readonly remote: boolean;
  /** Starts the wrapper (`argv`, run without a shell) in `cwd` as the run's session. */
  start(ref: SessionRef, cwd: string, argv: string[]): Promise<void>;
  /** The run's session as the backend sees it now. */
  observe(ref: SessionRef): Promise<SessionView>;
  /** The name a run's session has in this backend (derived from the run id, never stored). */
  sessionName(id: string): string;
  /** Every session this backend holds, by session name (a run's is `sessionName(id)`). */
  list(): Promise<Map<string, SessionView>>;
  /**
   * Ends the current session's agent (SIGINT, then SIGTERM, SIGKILL after their graces); the
   * synthesis and `stop` go through here. Says how it ended, 'gone' when nothing ran.
   */
  interrupt(ref: SessionRef, session: SessionRecord, grace: StopGrace): Promise<'gone' | NodeJS.Signals>;
  /** Removes the session and everything it started that is left (the wrapper's own part). */
  stop(ref: SessionRef): Promise<void>;
}
