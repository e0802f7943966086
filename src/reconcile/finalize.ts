import { rmSync } from 'node:fs';
import { dirname } from 'node:path';

import { removeSession, stopAgent, wrapperOf, wrapperRunning, type WrapperRef } from '../adapters/agent.js';
import { anyBackend } from '../adapters/backend/index.js';
import { readText, writeFileAtomic } from '../adapters/files.js';
import { removeRunVars } from '../adapters/outbox.js';
import { endLeftoverGroup, isAlive, stopGraceOf } from '../adapters/processes.js';
import { markFinished } from '../adapters/run-index.js';
import { readAgent, readSentinel, readSession, readSpec } from '../adapters/store.js';
import { cancelWakeTimer } from '../adapters/wake-timer.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionRecord } from '../core/run/types.js';
import { observe } from '../read/observe.js';
import { writeResult } from '../read/result.js';
import { buildRow, countsStamp } from '../read/rows.js';
import type { PassHooks } from './hooks.js';

// Finalize: a finished run is made free of agents, then summarized once for every later reader.

/**
 * How long a person's command (stop, archive, rm) looks for an agent a moment away from starting
 * (a pass started its session just before): it records itself and, seeing the sentinel, never
 * starts; the command goes on once that is settled.
 */
export const SETTLE_MS = 15_000;

export interface FinalizeOptions {
  /**
   * How long to keep looking for an agent a moment away from starting (a wrapper between its
   * start and its pid record): `stop` waits, so that nothing of the run is alive when it returns;
   * a pass does not, and leaves the run among the live ones for the next pass to look at again.
   */
  waitMs?: number;
}

export interface Finalized {
  /** An agent was still running and was stopped now. */
  stopped: boolean;
  /** The run is verified free of agents: nothing of it can run any more. */
  settled: boolean;
  /**
   * Its last notices are queued, its summary written, and it is out of every later pass (false
   * when either is not done yet: the next pass finalizes it again).
   */
  summarized: boolean;
}

/**
 * A run with a sentinel whose agents are not yet verified gone: stop what is left (the agent's
 * process group, its wake timer, its backend's session), then write its status summary and move it to
 * the finished index, out of every later pass. Null for live runs.
 * `hooks` is required (undefined when there are no targets): a caller that summarizes a run
 * without queueing its last transitions would lose its DONE or FAILED notice for good.
 */
export async function finalizeFinished(
  id: string,
  paths: RunPaths,
  now: Date,
  hooks: PassHooks | undefined,
  opts: FinalizeOptions = {},
): Promise<Finalized | null> {
  const sentinel = readSentinel(paths);
  if (!sentinel) return null;
  let spec: RunSpec | null = null;
  try {
    spec = await readSpec(paths);
  } catch {
    // A corrupt run.yaml does not stop the cleanup: every backend it may have run on is asked.
  }
  const wrapper = spec ? wrapperOf(spec, paths) : { backend: anyBackend(paths), ref: { id, paths } };
  await cancelWakeTimer(paths);
  const deadline = Date.now() + (opts.waitMs ?? 0);
  let stopped = false;
  for (;;) {
    const session = readSession(paths);
    const grace = spec ? stopGraceOf(spec.limits.stopGrace) : undefined;
    if ((await stopAgent(wrapper, session, grace)) !== 'gone') stopped = true;
    if (await settled(paths, session, wrapper)) break;
    // Not yet: the next pass looks again (the run stays live until its last session is settled).
    if (Date.now() >= deadline) return { stopped, settled: false, summarized: false };
    await new Promise((r) => setTimeout(r, 100));
  }
  // A caller that waits also sees the wrapper out (it records the end, then leaves).
  while (Date.now() < deadline && (await wrapperRunning(wrapper)))
    await new Promise((r) => setTimeout(r, 100));
  await removeSession(wrapper);
  // Later passes skip a summarized run: its last transitions (DONE, FAILED) are queued first, with
  // the launch environment's values they need. If that fails, the next pass finalizes it again.
  if (hooks && !(await hooks.afterRun(id, paths))) return { stopped, settled: true, summarized: false };
  // The captured environment holds credentials; a finished run needs them no more.
  rmSync(paths.agentEnv, { force: true });
  removeRunVars(dirname(paths.workspace), id);
  if (spec) {
    const obs = await observe(paths, spec, async () => false, process.env, now);
    const summary = { ...buildRow(id, paths, spec, obs, now), countsStamp: countsStamp(paths) };
    writeFileAtomic(paths.final, JSON.stringify(summary) + '\n');
    await writeResult(summary, paths);
  }
  const state = sentinel.kind === 'DONE' ? 'done' : 'failed';
  markFinished(dirname(paths.workspace), { id, finishedAt: now, state });
  return { stopped, settled: true, summarized: true };
}

/**
 * The run's last session can start no agent any more: its end is recorded, or its recorded agent
 * is gone, or it has no agent record and no wrapper that could still start one. (An agent records
 * itself before it starts, and starts only while no sentinel exists.)
 */
async function settled(
  paths: RunPaths,
  session: SessionRecord | null,
  wrapper: WrapperRef,
): Promise<boolean> {
  const agent = session ? readAgent(paths, session) : null;
  if (!session || readText(paths.exitFile(session.n)) !== null) {
    if (agent) endLeftoverGroup(agent.pid, agent.startTime);
    return true;
  }
  if (agent) {
    const gone = !(await isAlive(agent.pid, agent.startTime));
    if (gone) endLeftoverGroup(agent.pid, agent.startTime);
    return gone;
  }
  return !(await wrapperRunning(wrapper));
}
