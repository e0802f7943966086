import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { exists, mtime } from '../adapters/files.js';
import { removeWorktree, uncommitted } from '../adapters/git.js';
import { markRemoved } from '../adapters/run-index.js';
import { hasSentinel, listRunIds, readSentinel, readSpec } from '../adapters/store.js';
import { OperationalError, UsageError } from '../core/errors.js';
import { recordsDir, rootPaths, runPaths, type RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import type { Notifier } from '../notify/queue.js';
import { finalizeFinished, SETTLE_MS } from '../reconcile/finalize.js';

// Moving finished runs out of the way, and deleting them: each change to where runs live is one
// function here. The callers hold the pass lock.

/** Refuses a run that is not finished: archive and rm never touch a live night. */
function mustBeFinished(root: string, id: string, verb: string): void {
  if (!hasSentinel(runPaths(root, id)))
    throw new UsageError(`${id} is not finished; ${verb} takes finished runs only (stop or finish it first)`);
}

/**
 * Makes sure nothing of a finished run can run any more (an agent a racing pass started is
 * stopped), and summarizes it, before it moves: once moved, no pass looks at it again.
 */
async function settle(id: string, paths: RunPaths, now: Date, notifier: Notifier | undefined): Promise<void> {
  const done = await finalizeFinished(id, paths, now, notifier, { waitMs: SETTLE_MS });
  if (!done?.settled)
    throw new OperationalError(
      `${id}: its last session could not be verified over; it was left where it is (try again shortly)`,
    );
}

/**
 * `<root>/<id>` to `<root>/archive/<id>`, in one rename: out of the dashboard and of every pass.
 * The run is first made sure to be free of agents and summarized, as any finished run is.
 */
export async function archiveRun(
  root: string,
  id: string,
  now: Date,
  notifier: Notifier | undefined,
): Promise<string> {
  mustBeFinished(root, id, 'archive');
  const from = runPaths(root, id);
  // No pass looks at an archived run: its last transitions are queued now, or it stays.
  if (notifier && !(await notifier.queue(id, from)))
    throw new OperationalError(`${id}: its notifications could not be queued; it was left where it is`);
  await settle(id, from, now, notifier);
  const archive = rootPaths(root).archive;
  mkdirSync(archive, { recursive: true, mode: 0o700 });
  const to = join(archive, id);
  if (exists(to)) throw new OperationalError(`${to} already exists; ${id} was left where it is`);
  // Read before the move: the index says how the run ended.
  const sentinel = readSentinel(from);
  // Records first, then the directory. A crash between the two (a window of one rename) leaves the
  // run's directory in the root without records: status shows it as a broken file, never a live run.
  const records = recordsDir(archive, id);
  mkdirSync(dirname(records), { recursive: true, mode: 0o700 });
  if (exists(from.state)) renameSync(from.state, records);
  renameSync(from.workspace, to);
  markRemoved(root, id, sentinel?.kind === 'FAILED' ? 'failed' : 'done', now);
  return to;
}

/** Finished runs of the root whose sentinel is older than `before` (the time they finished). */
export function finishedBefore(root: string, before: Date): string[] {
  return listRunIds(root).filter((id) => {
    const p = runPaths(root, id);
    const at = mtime(p.done) ?? mtime(p.failed);
    return at !== null && at.getTime() < before.getTime();
  });
}

/** What `rm` would delete, said before it does. */
export interface Removal {
  id: string;
  workspace: string;
  repo: RunSpec['repo'];
  /** The worktree is still there to delete. */
  worktree: boolean;
  /** Uncommitted changes in the worktree, which go with it. */
  uncommitted: number;
}

export async function planRemoval(dir: string, id: string): Promise<Removal> {
  mustBeFinished(dir, id, 'rm');
  const paths = runPaths(dir, id);
  let repo: RunSpec['repo'] = null;
  try {
    repo = (await readSpec(paths)).repo;
  } catch {
    // a run whose run.yaml is unusable is deleted all the same; it names no worktree then
  }
  const worktree = repo !== null && exists(repo.worktree);
  const changes = repo && worktree ? (await uncommitted(repo.worktree)).length : 0;
  return { id, workspace: paths.workspace, repo, worktree, uncommitted: changes };
}

/**
 * Deletes a finished run (`dir` is the runs root or its archive) with its worktree, never its
 * branch. The directory is renamed out of every pass's sight first, then deleted.
 */
export async function removeRun(dir: string, r: Removal, now: Date): Promise<string[]> {
  const paths = runPaths(dir, r.id);
  // Deleted at the person's word: what it would have told them is theirs already.
  await settle(r.id, paths, now, undefined);
  const notes: string[] = [];
  if (r.repo && r.worktree) {
    try {
      await removeWorktree(r.repo.path, r.repo.worktree);
    } catch (err) {
      // The repository moved or is gone: the directory goes all the same; git forgets it on prune.
      rmSync(r.repo.worktree, { recursive: true, force: true });
      notes.push(`${(err as Error).message}; deleted ${r.repo.worktree} itself`);
    }
  }
  const doomed = join(dir, `.removing-${r.id}-${process.pid}`);
  const sentinel = readSentinel(paths);
  mkdirSync(doomed, { mode: 0o700 });
  if (exists(paths.state)) renameSync(paths.state, join(doomed, 'records'));
  renameSync(paths.workspace, join(doomed, 'run'));
  // Out of the runs root's indexes (an archived run is in none: the archive keeps no index).
  markRemoved(dir, r.id, sentinel?.kind === 'FAILED' ? 'failed' : 'done', now);
  rmSync(doomed, { recursive: true, force: true });
  rmSync(paths.agentEnv, { force: true });
  return notes;
}
