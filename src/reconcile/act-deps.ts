import { removeSession, startSession, stopAgent, wrapperOf, type SessionStart } from '../adapters/agent.js';
import { checkOutput, startCheck, stopCheck } from '../adapters/check.js';
import { deliver } from '../adapters/deliver.js';
import { writeFileAtomic } from '../adapters/files.js';
import { commitLeftWork } from '../adapters/git-commit.js';
import type { StopGrace } from '../adapters/processes.js';
import { startReview } from '../adapters/review.js';
import {
  appendEvent,
  markStale,
  readSentinel,
  readSessionLogs,
  writeSentinel,
  writeSpec,
} from '../adapters/store.js';
import { archiveTranscript } from '../adapters/transcript.js';
import { armWakeTimer } from '../adapters/wake-timer.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionRecord } from '../core/run/types.js';
import { finalizeFinished } from './finalize.js';
import type { PassHooks } from './hooks.js';

// What act touches of the world, as one narrow set: the run's backend session and processes, its
// check, its records, its timers. The default is the real adapters; a table test gives fakes
// (test/unit/act.test.ts), so act's choices are tested without tmux.

export interface ActDeps {
  /** The run's session on its backend (tmux, detached, slurm). */
  sessions: {
    start(s: SessionStart): Promise<SessionRecord>;
    /** Its agent interrupted, then stopped; what it took ('gone' when nothing ran). */
    stopAgent(
      spec: RunSpec,
      paths: RunPaths,
      session: SessionRecord | null,
      grace: StopGrace,
    ): Promise<string>;
    remove(spec: RunSpec, paths: RunPaths): Promise<void>;
  };
  /** The run's check (`--verify`), a process of its own. */
  checks: {
    start: typeof startCheck;
    stop: typeof stopCheck;
    output: typeof checkOutput;
  };
  /** The run's records. */
  store: {
    append: typeof appendEvent;
    markStale: typeof markStale;
    markHung(paths: RunPaths, n: number, at: Date): void;
    readSentinel: typeof readSentinel;
    writeSentinel: typeof writeSentinel;
    readSessionLogs: typeof readSessionLogs;
    writeSpec: typeof writeSpec;
    archiveTranscript: typeof archiveTranscript;
  };
  /** The wake timer a wait arms (false when it was armed already). */
  armWake: typeof armWakeTimer;
  /** A finished run made free of agents and summarized (reconcile/finalize.ts). */
  finalize(id: string, paths: RunPaths, now: Date, hooks: PassHooks | undefined): Promise<unknown>;
  /** A fresh conversation's id. */
  newSessionId(): string;
  /** What the agent left uncommitted in a repository run's worktree, committed by overnight. */
  commitWork: typeof commitLeftWork;
  /** The reviewer's step (`review`), started like a check. */
  reviews: { start: typeof startReview };
  /** The night's work committed for its final check, and what it changed of the tests. */
  deliver: typeof deliver;
}

export const REAL_ACT_DEPS: ActDeps = {
  sessions: {
    start: startSession,
    stopAgent: (spec, paths, session, grace) => stopAgent(wrapperOf(spec, paths), session, grace),
    remove: (spec, paths) => removeSession(wrapperOf(spec, paths)),
  },
  checks: { start: startCheck, stop: stopCheck, output: checkOutput },
  store: {
    append: appendEvent,
    markStale,
    markHung: (paths, n, at) => writeFileAtomic(paths.hungFile(n), `${at.toISOString()}\n`),
    readSentinel,
    writeSentinel,
    readSessionLogs,
    writeSpec,
    archiveTranscript,
  },
  armWake: armWakeTimer,
  finalize: (id, paths, now, hooks) => finalizeFinished(id, paths, now, hooks),
  commitWork: commitLeftWork,
  reviews: { start: startReview },
  deliver,
  newSessionId: () => crypto.randomUUID(),
};
