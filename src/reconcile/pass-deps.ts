import { rmSync } from 'node:fs';

import { exists, writeFileAtomic } from '../adapters/files.js';
import { tryLock } from '../adapters/lock.js';
import { ensureRunIndex, liveRunIds } from '../adapters/run-index.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { listRunIds } from '../adapters/store.js';
import { readHeartbeat, writeHeartbeat } from '../adapters/supervision.js';
import { sweepRoot, sweepTemps } from '../adapters/temps.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { passHooks } from './hooks.js';
import { requestRun, servedFirst } from './run-requests.js';
import { reconcileRun } from './run.js';

// What a pass touches of the world, as one narrow set: the runs root (its lock, its requests, its
// indexes, its heartbeat, its temp files), each run's own step, the notifications' hooks, and the
// clock it waits by. The default is the real adapters; a table test gives fakes
// (test/unit/pass.test.ts).

export interface PassDeps {
  root: {
    usable: typeof usableRunsRoot;
    /** The pass lock; null when another pass holds it. */
    lock: typeof tryLock;
    /** Another pass was asked for while this one runs (`pass.requested`). */
    requested(root: string): boolean;
    request(root: string, at: Date): void;
    clearRequest(root: string): void;
    /** This run asked for the pass (its agent just ended): the lock holder serves it next. */
    requestRun(root: string, id: string): void;
    /** Moves the runs requested meanwhile to the front of what is left of the round. */
    servedFirst(root: string, queue: string[], live: readonly string[]): void;
  };
  runs: {
    /** The live runs, the index made first if need be. */
    live(root: string): string[];
    /** The live runs as the index has them, or every run; nothing written (a dry run). */
    peek(root: string): string[];
    reconcile: typeof reconcileRun;
  };
  heartbeat: { read: typeof readHeartbeat; write: typeof writeHeartbeat };
  /** Temp files of killed writers: in the root, its dot-dirs, and the records of the runs looked at. */
  sweep(root: string, ids: readonly string[], now: Date): void;
  hooks: typeof passHooks;
  clock: { now(): number; sleep(ms: number): Promise<void> };
}

export const REAL_PASS_DEPS: PassDeps = {
  root: {
    usable: usableRunsRoot,
    lock: tryLock,
    requested: (root) => exists(rootPaths(root).passRequested),
    request: (root, at) => writeFileAtomic(rootPaths(root).passRequested, `${at.toISOString()}\n`),
    // Looked for first: rmSync of a missing file costs an exception, and every round clears.
    clearRequest: (root) => {
      const path = rootPaths(root).passRequested;
      if (exists(path)) rmSync(path, { force: true });
    },
    requestRun: (root, id) => requestRun(rootPaths(root).runRequests, id),
    servedFirst: servedFirstOnceAsked(),
  },
  runs: {
    live: ensureRunIndex,
    peek: (root) => liveRunIds(root) ?? listRunIds(root),
    reconcile: reconcileRun,
  },
  heartbeat: { read: readHeartbeat, write: writeHeartbeat },
  sweep(root, ids, now) {
    sweepRoot(root, now, rootPaths(root).swept, () => {
      for (const id of ids) sweepTemps(runPaths(root, id).state, now);
    });
  },
  hooks: passHooks,
  clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
};

/**
 * The runs' requests are listed at a round's first look, and after that only while a pass request
 * is there: a run asks (requestRun) only just before it asks for a pass (acquire), so a round
 * over healthy runs lists that directory once, not once a run.
 */
export function servedFirstOnceAsked(): PassDeps['root']['servedFirst'] {
  const looked = new WeakSet<string[]>();
  return (root, queue, live) => {
    const paths = rootPaths(root);
    if (looked.has(queue) && !exists(paths.passRequested)) return;
    looked.add(queue);
    servedFirst(paths.runRequests, queue, live);
  };
}
