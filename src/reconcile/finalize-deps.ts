import { rmSync } from 'node:fs';
import { dirname } from 'node:path';

import { removeSession, stopAgent, wrapperOf, wrapperRunning, type WrapperRef } from '../adapters/agent.js';
import { anyBackend } from '../adapters/backend/index.js';
import { readText, writeFileAtomic } from '../adapters/files.js';
import { removeRunVars } from '../adapters/outbox.js';
import { endLeftoverGroup, isAlive, type StopGrace } from '../adapters/processes.js';
import { markFinished } from '../adapters/run-index.js';
import { readAgent, readSentinel, readSession, readSpec, sentinelViewProblem } from '../adapters/store.js';
import { cancelWakeTimer } from '../adapters/wake-timer.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionRecord } from '../core/run/types.js';
import { observe } from '../read/observe.js';
import { writeResult } from '../read/result.js';
import { buildRow, countsStamp } from '../read/rows.js';

// What finalize touches of the world, as one narrow set: the run's records, its backend session
// and processes, its timers, its summary, and the clock it waits by. The default is the real
// adapters; a table test gives fakes (test/unit/finalize.test.ts).

export interface FinalizeDeps {
  store: {
    readSentinel: typeof readSentinel;
    readSpec: typeof readSpec;
    readSession: typeof readSession;
    readAgent: typeof readAgent;
    /** The session's end is recorded (its exit file). */
    exitRecorded(paths: RunPaths, n: number): boolean;
  };
  /** The run's session on its backend: every backend it may have run on when run.yaml is unusable. */
  sessions: {
    wrapper(spec: RunSpec | null, id: string, paths: RunPaths): WrapperRef;
    stopAgent(w: WrapperRef, session: SessionRecord | null, grace: StopGrace | undefined): Promise<string>;
    running(w: WrapperRef): Promise<boolean>;
    remove(w: WrapperRef): Promise<void>;
  };
  processes: { isAlive: typeof isAlive; endLeftoverGroup: typeof endLeftoverGroup };
  cancelWakeTimer: typeof cancelWakeTimer;
  /** The captured environment and the run's withheld values: credentials a finished run needs no more. */
  forgetSecrets(id: string, paths: RunPaths): void;
  /** final.json and result.json, written once for every later reader. */
  summarize(id: string, paths: RunPaths, spec: RunSpec, now: Date): Promise<void>;
  /** The run moved to the finished index, out of every later pass. */
  markFinished(paths: RunPaths, entry: Parameters<typeof markFinished>[1]): void;
  clock: { now(): number; sleep(ms: number): Promise<void> };
}

export const REAL_FINALIZE_DEPS: FinalizeDeps = {
  store: {
    readSentinel,
    readSpec,
    readSession,
    readAgent,
    exitRecorded: (paths, n) => readText(paths.exitFile(n)) !== null,
  },
  sessions: {
    wrapper: (spec, id, paths) =>
      spec ? wrapperOf(spec, paths) : { backend: anyBackend(paths), ref: { id, paths } },
    stopAgent,
    running: wrapperRunning,
    remove: removeSession,
  },
  processes: { isAlive, endLeftoverGroup },
  cancelWakeTimer,
  forgetSecrets(id, paths) {
    rmSync(paths.agentEnv, { force: true });
    removeRunVars(dirname(paths.workspace), id);
  },
  async summarize(id, paths, spec, now) {
    const obs = await observe(paths, spec, async () => false, process.env, now);
    const row = { ...buildRow(id, paths, spec, obs, now), countsStamp: countsStamp(paths) };
    // A view refused for this run (a directory at its name) is named in its row; the pass goes on.
    const refused = [await writeResult(row, paths), sentinelViewProblem(paths)].filter((p) => p !== null);
    const notices = refused.map((text) => ({ code: 'view-refused' as const, text }));
    const summary = notices.length > 0 ? { ...row, warnings: [...(row.warnings ?? []), ...notices] } : row;
    writeFileAtomic(paths.final, JSON.stringify(summary) + '\n');
  },
  markFinished: (paths, entry) => markFinished(dirname(paths.workspace), entry),
  clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
};
