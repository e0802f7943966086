import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import { exists, mtime, present } from '../adapters/files.js';
import { recordedTree } from '../adapters/git-worktree.js';
import { removeWorktree, uncommitted, type GitTree } from '../adapters/git.js';
import { markLayout } from '../adapters/legacy-layout.js';
import { markRemoved, markRestored } from '../adapters/run-index.js';
import { hasSentinel, listRunIds, readSentinel, readSpec } from '../adapters/store.js';
import { OperationalError, UsageError } from '../core/errors.js';
import { recordsDir, rootPaths, runPaths, type RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
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
async function settle(id: string, paths: RunPaths, now: Date): Promise<void> {
  // Nothing is queued: the run is archived or deleted at the person's word, and its news is old.
  const done = await finalizeFinished(id, paths, now, undefined, { waitMs: SETTLE_MS });
  if (!done?.settled)
    throw new OperationalError(
      `${id}: its last session could not be verified over; it was left where it is (try again shortly)`,
    );
}

/**
 * `<root>/<id>` to `<root>/archive/<id>`, in one rename: out of the dashboard and of every pass.
 * The run is first made sure to be free of agents and summarized, as any finished run is.
 */
export async function archiveRun(root: string, id: string, now: Date): Promise<string> {
  mustBeFinished(root, id, 'archive');
  const from = runPaths(root, id);
  // Archived at the person's word: nothing is queued now (a run that finished before notify: was
  // configured would send old news, naming a path about to go); what is queued already is not
  // sent once the run has moved (see the sender).
  await settle(id, from, now);
  const archive = rootPaths(root).archive;
  // Made now, it holds no run of the old layout: marked, so none of its directories is taken for one.
  if (!exists(archive)) {
    mkdirSync(archive, { recursive: true, mode: 0o700 });
    markLayout(archive);
  }
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

/**
 * `<root>/archive/<id>` back to `<root>/<id>`, the way archive moved it: in the dashboard again, and
 * in the finished index as finished now, among the recent ones. No pass acts on it: it is finished.
 */
export function unarchiveRun(root: string, id: string, now: Date): string {
  mustBeFinished(rootPaths(root).archive, id, 'unarchive');
  const from = runPaths(rootPaths(root).archive, id);
  const to = runPaths(root, id);
  for (const taken of [to.workspace, to.state])
    if (exists(taken)) throw new OperationalError(`${taken} already exists; ${id} was left in the archive`);
  const sentinel = readSentinel(from);
  // Records first, then the directory, as archive moves them: a crash between the two leaves the
  // run's directory in the archive without records, listed by `status --archived` as a broken file.
  mkdirSync(dirname(to.state), { recursive: true, mode: 0o700 });
  if (exists(from.state)) renameSync(from.state, to.state);
  renameSync(from.workspace, to.workspace);
  markRestored(root, { id, finishedAt: now, state: sentinel?.kind === 'FAILED' ? 'failed' : 'done' });
  return to.workspace;
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
  /** The worktree is still there to delete, and git lists it as overnight made it. */
  worktree: boolean;
  /** git's view of it: its git dir from overnight's records, matched against the repository's. */
  tree: GitTree | null;
  /** Uncommitted changes in the worktree, which go with it. */
  uncommitted: number;
  /** Why a worktree that is there is left alone, with what the person can run. */
  leftAlone: string | null;
}

/**
 * `dir` is where the run is (the runs root or its archive); `root` the runs root, under which
 * overnight made the run's worktree (`worktrees/<run id>`): the only one rm ever removes.
 */
export async function planRemoval(dir: string, id: string, root = dir): Promise<Removal> {
  mustBeFinished(dir, id, 'rm');
  const paths = runPaths(dir, id);
  let repo: RunSpec['repo'] = null;
  try {
    repo = (await readSpec(paths)).repo;
  } catch {
    // a run whose run.yaml is unusable is deleted all the same; it names no worktree then
  }
  const made = join(rootPaths(root).worktrees, id);
  const there = repo !== null && present(made);
  let tree: GitTree | null = null;
  let leftAlone: string | null = null;
  if (repo && resolve(repo.worktree) !== made)
    leftAlone =
      `the run's record names the worktree ${repo.worktree}, not ${made} where overnight made it; ` +
      'nothing of it was removed';
  else if (repo && there) {
    tree = await recordedTree({ ...repo, worktree: made });
    if (!tree)
      leftAlone =
        `${made} is not a worktree ${repo.path} lists as overnight made it; it was left as it is ` +
        `(look at it, then \`git -C ${repo.path} worktree remove --force ${made}\` or delete it yourself)`;
  }
  const changes = tree ? (await uncommitted(tree)).length : 0;
  return {
    id,
    workspace: paths.workspace,
    repo,
    worktree: tree !== null,
    tree,
    uncommitted: changes,
    leftAlone,
  };
}

/**
 * Deletes a finished run (`dir` is the runs root or its archive) with its worktree, never its
 * branch. The directory is renamed out of every pass's sight first, then deleted.
 */
export async function removeRun(dir: string, r: Removal, now: Date): Promise<string[]> {
  const paths = runPaths(dir, r.id);
  // Deleted at the person's word: what it would have told them is theirs already.
  await settle(r.id, paths, now);
  const notes: string[] = r.leftAlone ? [r.leftAlone] : [];
  // Only through git, only the worktree overnight made: never a delete of a path read from a file.
  if (r.repo && r.tree) {
    try {
      await removeWorktree(r.repo.path, r.tree.workTree);
    } catch (err) {
      notes.push(
        `${(err as Error).message}; the worktree ${r.tree.workTree} was left as it is ` +
          `(\`git -C ${r.repo.path} worktree remove --force ${r.tree.workTree}\` removes it)`,
      );
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
