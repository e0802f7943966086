import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { writeFileAtomic } from '../adapters/files.js';
import { worktreeGitDir } from '../adapters/git-worktree.js';
import { addWorktree, deleteBranchAt, removeWorktree } from '../adapters/git.js';
import { writeSpec } from '../adapters/store.js';
import { QUESTIONS_HEADER, renderClaudeMd } from '../core/agent/briefing.js';
import { OperationalError } from '../core/errors.js';
import { renderAgentEnv, runEnvironment } from '../core/run/agent-env.js';
import { runPaths } from '../core/run/paths.js';
import { describeFsError } from '../core/run/runs-root.js';
import type { RunSpec } from '../core/run/types.js';

// A run's workspace (and a repository run's worktree), made whole or not at all.

/** What a run starts with besides launch's own: a follow-up's carried-over files, its worktree. */
export interface Seed {
  /** The briefing (default: launch's, from the spec). */
  claudeMd?: string;
  /** questions.md as it starts (default: the header). */
  questions?: string;
  /** Writes more into the workspace-to-be, given where a run file goes in it, before it is placed. */
  fill?: (at: (file: string) => string) => void;
  /** The worktree made (default: on a new branch from the base) and taken back on failure. */
  worktree?: RepoWork;
  /** The last step before the workspace is put in place (a follow-up's link from the earlier run). */
  beforePlace?: () => void;
}

export interface RepoWork {
  make(): Promise<void>;
  undo(): Promise<void>;
}

/** Launch's worktree: a new branch from the base; taken back whole (nothing was committed yet). */
export function newBranchWork(repo: NonNullable<RunSpec['repo']>): RepoWork {
  return {
    make: () => addWorktree(repo.path, repo.worktree, repo.branch, repo.base),
    undo: () => removeRepoWork(repo),
  };
}

/**
 * Built in a hidden temp directory and renamed into place, so a failure leaves no half run; a
 * repository run's worktree is made last and taken back if the rest fails.
 */
export async function createWorkspace(
  root: string,
  spec: RunSpec,
  env: NodeJS.ProcessEnv,
  seed: Seed = {},
): Promise<void> {
  const tmp = join(root, `.launch-${spec.id}-${process.pid}`);
  const p = runPaths(root, spec.id);
  const work = spec.repo ? (seed.worktree ?? newBranchWork(spec.repo)) : null;
  let worktreeMade = false;
  let recordsPlaced = false;
  // The run's directory and its records are built side by side in one temp directory.
  const tmpWs = join(tmp, 'run');
  const tmpRec = join(tmp, 'records');
  try {
    mkdirSync(tmp, { mode: 0o700 });
    mkdirSync(tmpWs, { mode: 0o700 });
    mkdirSync(tmpRec, { mode: 0o700 });
    const at = (file: string) =>
      file.startsWith(`${p.state}/`)
        ? join(tmpRec, file.slice(p.state.length + 1))
        : join(tmpWs, file.slice(p.workspace.length + 1));
    mkdirSync(at(p.findings), { mode: 0o700 });
    const repo = spec.repo && { ...spec.repo, runDir: p.workspace };
    writeFileAtomic(at(p.claudeMd), seed.claudeMd ?? renderClaudeMd({ ...spec, repo }));
    writeFileAtomic(at(p.questions), seed.questions ?? QUESTIONS_HEADER);
    seed.fill?.(at);
    mkdirSync(dirname(p.agentEnv), { recursive: true, mode: 0o700 });
    // What the agent gets all night, in every session: the wrapper starts it with this alone.
    writeFileAtomic(
      p.agentEnv,
      renderAgentEnv(runEnvironment(env, p.workspace, spec.repo !== null, spec.sandbox ? p.tmp : null)),
    );
    writeFileAtomic(at(p.outputLog), '');
    writeFileAtomic(at(p.restartLog), '');
    let recorded = spec;
    if (spec.repo && work) {
      mkdirSync(dirname(spec.repo.worktree), { recursive: true, mode: 0o700 });
      await work.make();
      worktreeMade = true;
      recorded = { ...spec, repo: { ...spec.repo, gitDir: await madeGitDir(spec.repo) } };
    }
    await writeSpec({ runYaml: at(p.runYaml), specCache: at(p.specCache) }, recorded);
    seed.beforePlace?.();
    // Records first: a run is there once its directory is, and then its records are too.
    mkdirSync(dirname(p.state), { recursive: true, mode: 0o700 });
    renameSync(tmpRec, p.state);
    recordsPlaced = true;
    renameSync(tmpWs, p.workspace);
    rmSync(tmp, { recursive: true, force: true });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (recordsPlaced) rmSync(p.state, { recursive: true, force: true });
    rmSync(p.agentEnv, { force: true });
    if (work && worktreeMade) await work.undo();
    const e = err as NodeJS.ErrnoException;
    const why = /^E[A-Z0-9]+$/.test(e.code ?? '')
      ? describeFsError({ code: e.code as string, path: e.path })
      : e.message;
    throw new OperationalError(`could not create the run's workspace under ${root}: ${why}`);
  }
}

/** The git dir of a worktree just made, before any agent ran in it: what git is pointed at after. */
async function madeGitDir(repo: NonNullable<RunSpec['repo']>): Promise<string> {
  const gitDir = await worktreeGitDir({ path: repo.path, worktree: repo.worktree });
  if (!gitDir) throw new Error(`git lists no worktree at ${repo.worktree} after making it`);
  return gitDir;
}

/** Takes back a worktree and branch made for a run that never started (nothing was committed). */
export async function removeRepoWork(repo: NonNullable<RunSpec['repo']>): Promise<void> {
  await removeWorktree(repo.path, repo.worktree).catch(() => {});
  rmSync(repo.worktree, { recursive: true, force: true });
  await deleteBranchAt(repo.path, repo.branch, repo.base);
}
