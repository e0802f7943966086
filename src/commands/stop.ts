import { resolveRunName } from '../core/naming.js';
import { UsageError } from '../core/errors.js';
import { loadSettings } from '../adapters/config-file.js';
import { appendEvent, hasSentinel, listRunIds, pathsFor, writeSentinel } from '../adapters/store.js';
import { finalizeFinished } from './reconcile-run.js';
import type { Io } from './io.js';

export interface StopOptions {
  all?: boolean;
}

export const STOPPED_REASON = 'stopped by user';

/**
 * DONE first, so that no pass restarts the agent from here on (and one that had already
 * decided to re-checks it before starting); then the agent and its tmux session go.
 */
export async function stopCommand(name: string | undefined, opts: StopOptions, io: Io): Promise<number> {
  if (!name && !opts.all) throw new UsageError('name a run to stop (a unique prefix of its id is enough), or use --all');
  if (name && opts.all) throw new UsageError('give either a run or --all, not both');
  const { settings } = await loadSettings({}, io.env);
  const root = settings.runsDir;
  const all = listRunIds(root);
  let ids: string[];
  if (name) {
    const r = resolveRunName(name, all);
    if ('error' in r) throw new UsageError(r.error);
    ids = [r.id];
  } else {
    ids = all.filter((id) => !hasSentinel(pathsFor(root, id)));
    if (ids.length === 0) io.stdout('No unfinished runs to stop.');
  }
  for (const id of ids) {
    const paths = pathsFor(root, id);
    const already = hasSentinel(paths);
    if (!already) {
      writeSentinel(paths, 'DONE', STOPPED_REASON);
      appendEvent(paths, io.now(), { to: 'done', action: 'stop', reason: STOPPED_REASON });
    }
    await finalizeFinished(id, paths);
    io.stdout(already ? `${id}: already finished; nothing left running` : `${id}: stopped (DONE: ${STOPPED_REASON})`);
  }
  return 0;
}
