import { rmSync } from 'node:fs';

import { removeTmuxSession, stopAgent } from '../adapters/agent.js';
import { writeFileAtomic } from '../adapters/files.js';
import { stopGraceOf } from '../adapters/processes.js';
import { hasSentinel, readSession, readSpec } from '../adapters/store.js';
import { resolveExecutable } from '../adapters/which.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { buildRow, countsStamp } from '../dashboard/rows.js';
import type { Notifier } from '../notify/queue.js';
import { observe } from './observe.js';

// Finalize: a finished run is made free of agents, then summarized once for every later reader.

/**
 * A run with a sentinel whose agents are not yet verified gone: stop what is left, then write
 * its status summary, which marks it as finished for every later pass. False for live runs.
 * `notifier` is required (undefined when there are no targets): a caller that summarizes a run
 * without queueing its last transitions would lose its DONE or FAILED notice for good.
 */
export async function finalizeFinished(
  id: string,
  paths: RunPaths,
  now: Date,
  notifier: Notifier | undefined,
): Promise<boolean> {
  if (!hasSentinel(paths)) return false;
  let spec: RunSpec | null = null;
  try {
    spec = await readSpec(paths);
  } catch {
    // A corrupt run.yaml does not stop the cleanup: tmux is then looked up on PATH.
  }
  const session = readSession(paths);
  const tmuxBin = spec?.paths.tmux ?? resolveExecutable('tmux');
  const socket = spec?.paths.tmuxSocket ?? null;
  const wrapper = tmuxBin ? { tmux: tmuxBin, socket, id } : undefined;
  await stopAgent(paths, session, spec ? stopGraceOf(spec.limits.stopGrace) : undefined, wrapper);
  if (tmuxBin) await removeTmuxSession(tmuxBin, id, socket);
  // Later passes skip a summarized run: its last transitions (DONE, FAILED) are queued first, with
  // the launch environment's values they need. If that fails, the next pass finalizes it again.
  if (notifier && !(await notifier.queue(id, paths))) return true;
  // The captured environment holds credentials; a finished run needs them no more.
  rmSync(paths.agentEnv, { force: true });
  if (spec) {
    const obs = await observe(paths, spec, async () => new Map(), process.env, now);
    const summary = { ...buildRow(id, paths, spec, obs, now), countsStamp: countsStamp(paths) };
    writeFileAtomic(paths.final, JSON.stringify(summary) + '\n');
  }
  return true;
}
