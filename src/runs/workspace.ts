import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { writeFileAtomic } from '../adapters/files.js';
import { addWorktree, deleteBranchAt, removeWorktree } from '../adapters/git.js';
import { writeSpec } from '../adapters/store.js';
import { QUESTIONS_HEADER, renderClaudeMd } from '../core/agent/briefing.js';
import { OperationalError } from '../core/errors.js';
import { renderAgentEnv, runEnvironment } from '../core/run/agent-env.js';
import { runPaths } from '../core/run/paths.js';
import { describeFsError } from '../core/run/runs-root.js';
import type { RunSpec } from '../core/run/types.js';

// A run's workspace (and a repository run's worktree), made whole or not at all.

/**
 * Built in a hidden temp directory and renamed into place, so a failure leaves no half run; a
 * repository run's worktree and branch are made last and taken back if the rest fails.
 */
export async function createWorkspace(root: string, spec: RunSpec, env: NodeJS.ProcessEnv): Promise<void> {
  const tmp = join(root, `.launch-${spec.id}-${process.pid}`);
  const p = runPaths(root, spec.id);
  let worktreeMade = false;
  try {
    mkdirSync(tmp, { mode: 0o700 });
    const at = (file: string) => join(tmp, file.slice(p.workspace.length + 1));
    mkdirSync(at(p.findings), { mode: 0o700 });
    mkdirSync(at(p.state), { mode: 0o700 });
    const repo = spec.repo && { ...spec.repo, runDir: p.workspace };
    writeFileAtomic(at(p.claudeMd), renderClaudeMd({ ...spec, repo }));
    writeFileAtomic(at(p.questions), QUESTIONS_HEADER);
    mkdirSync(dirname(p.agentEnv), { recursive: true, mode: 0o700 });
    // What the agent gets all night, in every session: the wrapper starts it with this alone.
    writeFileAtomic(p.agentEnv, renderAgentEnv(runEnvironment(env, p.workspace, spec.repo !== null)));
    await writeSpec({ ...p, runYaml: at(p.runYaml), specCache: at(p.specCache) }, spec);
    writeFileAtomic(at(p.outputLog), '');
    writeFileAtomic(at(p.restartLog), '');
    if (spec.repo) {
      mkdirSync(dirname(spec.repo.worktree), { recursive: true, mode: 0o700 });
      await addWorktree(spec.repo.path, spec.repo.worktree, spec.repo.branch, spec.repo.base);
      worktreeMade = true;
    }
    renameSync(tmp, p.workspace);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(p.agentEnv, { force: true });
    if (spec.repo && worktreeMade) await removeRepoWork(spec.repo);
    const e = err as NodeJS.ErrnoException;
    const why = /^E[A-Z0-9]+$/.test(e.code ?? '')
      ? describeFsError({ code: e.code as string, path: e.path })
      : e.message;
    throw new OperationalError(`could not create the run's workspace under ${root}: ${why}`);
  }
}

/** Takes back a worktree and branch made for a run that never started (nothing was committed). */
export async function removeRepoWork(repo: NonNullable<RunSpec['repo']>): Promise<void> {
  await removeWorktree(repo.path, repo.worktree).catch(() => {});
  rmSync(repo.worktree, { recursive: true, force: true });
  await deleteBranchAt(repo.path, repo.branch, repo.base);
}
