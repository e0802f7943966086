import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { appendEvent, hasSentinel, listRunIds, writeSentinel } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { makeNotifier } from '../notify/queue.js';
import { finalizeFinished } from '../reconcile/finalize.js';

export interface StopOptions {
  all?: boolean;
}

export const STOPPED_REASON = 'stopped by user';

/**
 * DONE first, so that no pass restarts the agent from here on; then the agent and its tmux
 * session go.
 */
export async function stopCommand(name: string | undefined, opts: StopOptions, io: Io): Promise<number> {
  if (!name && !opts.all)
    throw new UsageError('name a run to stop (its name, or a unique prefix of its id), or use --all');
  if (name && opts.all) throw new UsageError('give either a run or --all, not both');
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, 'write');
  const all = listRunIds(root);
  let ids: string[];
  if (name) {
    ids = [(await resolveRun(name, root, io)).id];
  } else {
    ids = all.filter((id) => !hasSentinel(runPaths(root, id)));
    if (ids.length === 0) io.stdout('No unfinished runs to stop.');
  }
  // Under the pass lock: a pass that is starting this run's next session finishes first.
  const release = ids.length > 0 ? await waitLock(rootPaths(root).lock, 60_000, () => {}) : async () => {};
  // A stop is the person's own doing and not news; a transition a killed pass left unqueued is.
  const notifier = makeNotifier(settings, io);
  try {
    for (const id of ids) {
      const paths = runPaths(root, id);
      const already = hasSentinel(paths);
      if (!already) {
        writeSentinel(paths, 'DONE', STOPPED_REASON);
        appendEvent(paths, io.now(), { to: 'done', action: 'stop', reason: STOPPED_REASON });
      }
      await finalizeFinished(id, paths, io.now(), notifier);
      io.stdout(
        already
          ? `${id}: already finished; nothing left running`
          : `${id}: stopped (DONE: ${STOPPED_REASON})`,
      );
    }
  } finally {
    await release();
  }
  return 0;
}
