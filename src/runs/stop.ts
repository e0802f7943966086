import { waitLock } from '../adapters/lock.js';
import { ensureRunIndex } from '../adapters/run-index.js';
import { appendEvent, hasSentinel, writeSentinel } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import type { Cause } from '../core/supervise/causes.js';
import { finalizeFinished, SETTLE_MS } from '../reconcile/finalize.js';
import { passHooks } from '../reconcile/hooks.js';

// `stop`: a run ends now, without a report.

const STOPPED_REASON = 'stopped by user';

/**
 * Stops the run `named`, or every unfinished run: DONE first, so that no pass restarts the agent
 * from here on and no starting agent goes on to run; then the agent's process group, its wake
 * timer and its tmux session go. Says each run's outcome as it goes; returns how many runs could
 * not be verified over (an agent may still be starting). When it returns 0, nothing of the runs
 * is alive.
 */
export async function stopRuns(
  root: string,
  named: string | null,
  settings: Settings,
  io: Io,
  say: (line: string) => void,
): Promise<number> {
  // Under the pass lock: a pass that is starting this run's next session finishes first.
  const release = await waitLock(rootPaths(root).lock, 60_000, () => {});
  // A stop is the person's own doing and not news; a transition a killed pass left unqueued is.
  const hooks = await passHooks(settings, io);
  let unsettled = 0;
  try {
    const ids = named ? [named] : ensureRunIndex(root).filter((id) => !hasSentinel(runPaths(root, id)));
    if (ids.length === 0) say('No unfinished runs to stop.');
    // Every run is marked first, then each is stopped (about a second and a half each): no
    // session of a run further down the list starts after the stop began.
    const marked = new Map<string, boolean>();
    for (const id of ids) {
      const paths = runPaths(root, id);
      const already = hasSentinel(paths);
      if (!already) {
        writeSentinel(paths, 'DONE', STOPPED_REASON, 'stopped');
        appendEvent(paths, io.now(), {
          to: 'done',
          action: 'stop',
          cause: 'stopped' satisfies Cause,
          reason: STOPPED_REASON,
        });
      }
      marked.set(id, already);
    }
    for (const id of ids) {
      const paths = runPaths(root, id);
      const already = marked.get(id) === true;
      const done = await finalizeFinished(id, paths, io.now(), hooks, { waitMs: SETTLE_MS });
      if (!done?.settled) unsettled++;
      say(
        !done?.settled
          ? `${id}: DONE, but its last session could not be verified over; ` +
              'the next reconcile pass looks again'
          : !already
            ? `${id}: stopped (DONE: ${STOPPED_REASON})`
            : done.stopped
              ? `${id}: already finished; stopped an agent that was still running`
              : `${id}: already finished; nothing left running`,
      );
    }
  } finally {
    await release();
  }
  return unsettled;
}
