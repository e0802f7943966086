import type { WrapperRef } from '../adapters/agent.js';
import { stopGraceOf } from '../adapters/processes.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionRecord } from '../core/run/types.js';
import { REAL_FINALIZE_DEPS, type FinalizeDeps } from './finalize-deps.js';
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
  deps: FinalizeDeps = REAL_FINALIZE_DEPS,
): Promise<Finalized | null> {
  const { store, sessions, clock } = deps;
  const sentinel = store.readSentinel(paths);
  if (!sentinel) return null;
  let spec: RunSpec | null = null;
  try {
    spec = await store.readSpec(paths);
  } catch {
    // A corrupt run.yaml does not stop the cleanup: every backend it may have run on is asked.
  }
  const wrapper = sessions.wrapper(spec, id, paths);
  await deps.cancelWakeTimer(paths);
  const deadline = clock.now() + (opts.waitMs ?? 0);
  let stopped = false;
  let cancelled = false;
  for (;;) {
    const session = store.readSession(paths);
    const grace = spec ? stopGraceOf(spec.limits.stopGrace) : undefined;
    if ((await sessions.stopAgent(wrapper, session, grace)) !== 'gone') stopped = true;
    if (await settled(paths, session, wrapper, deps)) break;
    // A scheduler's job that is not running (requeued after its node was lost, pending) has no
    // agent to interrupt, yet could run again: cancelled, it never will, and Slurm ends whatever
    // of it is left on the lost node if that comes back.
    if (
      wrapper.backend.remote &&
      !cancelled &&
      (await wrapper.backend.observe(wrapper.ref)).job?.outcome.kind === 'pending'
    ) {
      cancelled = true;
      await sessions.remove(wrapper);
      continue;
    }
    // Not yet: the next pass looks again (the run stays live until its last session is settled).
    if (clock.now() >= deadline) return { stopped, settled: false, summarized: false };
    await clock.sleep(100);
  }
  // A caller that waits also sees the wrapper out (it records the end, then leaves).
  while (clock.now() < deadline && (await sessions.running(wrapper))) await clock.sleep(100);
  await sessions.remove(wrapper);
  // Later passes skip a summarized run: its last transitions (DONE, FAILED) are queued first, with
  // the launch environment's values they need. If that fails, the next pass finalizes it again.
  if (hooks && !(await hooks.afterRun(id, paths))) return { stopped, settled: true, summarized: false };
  // The captured environment holds credentials; a finished run needs them no more.
  deps.forgetSecrets(id, paths);
  if (spec) await deps.summarize(id, paths, spec, now);
  const state = sentinel.kind === 'DONE' ? 'done' : 'failed';
  deps.markFinished(paths, { id, finishedAt: now, state });
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
  { store, sessions, processes }: FinalizeDeps,
): Promise<boolean> {
  const agent = session ? store.readAgent(paths, session) : null;
  if (!session || store.exitRecorded(paths, session.n)) {
    if (agent) processes.endLeftoverGroup(agent.pid, agent.startTime);
    return true;
  }
  // Another node's pid means nothing here: the scheduler says whether the session's job may run.
  if (agent && wrapper.backend.remote) return !(await sessions.running(wrapper));
  if (agent) {
    const gone = !(await processes.isAlive(agent.pid, agent.startTime));
    if (gone) processes.endLeftoverGroup(agent.pid, agent.startTime);
    return gone;
  }
  return !(await sessions.running(wrapper));
}
