import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { startSession } from '../adapters/agent.js';
import { startCheck } from '../adapters/check.js';
import { present } from '../adapters/files.js';
import { removeRunVars, saveRunVars } from '../adapters/outbox.js';
import { markLive, markRemoved } from '../adapters/run-index.js';
import { armEndTimer } from '../adapters/wake-timer.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import { OperationalError } from '../core/errors.js';
import { secretVarsOf } from '../core/notify/targets.js';
import { recordsDir, rootPaths, runPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { rememberDigestVars } from '../notify/digest.js';
import { createWorkspace, newBranchWork, type Seed } from './workspace.js';

// The one place a run comes to be, for `launch` and `continue` alike: its workspace made whole,
// then its first session started. The caller holds the pass lock. Nothing is left when either fails.

/**
 * Whether an id is taken: by anything at a path a run of that id would have (a run, an archived
 * one, its records or worktree), a stray file or a dangling link included. A new run gets another.
 */
export function idTaken(root: string): (id: string) => boolean {
  const rp = rootPaths(root);
  return (id) => {
    const p = runPaths(root, id);
    const archived = [join(rp.archive, id), recordsDir(rp.archive, id)];
    return [p.workspace, p.state, ...archived, join(rp.worktrees, id)].some(present);
  };
}

export async function createRun(
  root: string,
  spec: RunSpec,
  io: Io,
  settings: Settings,
  seed: Seed = {},
): Promise<void> {
  // What notification targets name (tokens, webhook URLs) is kept for them, never given the agent.
  const secret = secretVarsOf(settings.notify).filter((n) => io.env[n] !== undefined);
  const agentEnv = { ...io.env };
  for (const n of secret) delete agentEnv[n];
  if (secret.length > 0) {
    saveRunVars(root, spec.id, Object.fromEntries(secret.map((n) => [n, io.env[n] as string])));
    io.stderr(`note: withheld from the agent's environment (named by notify: targets): ${secret.join(', ')}`);
  }
  try {
    await createWorkspace(root, spec, agentEnv, seed);
  } catch (err) {
    removeRunVars(root, spec.id);
    throw err;
  }
  const paths = runPaths(root, spec.id);
  try {
    // Passes look at live runs only: this one is among them before its agent can start.
    markLive(root, spec.id);
    // A repository run with a check takes its baseline first; the passes start the first session.
    if (spec.verify && spec.repo) await startCheck(spec, paths, 'baseline', spec.startedAt, 1);
    else
      await startSession({
        spec,
        paths,
        mode: 'initial',
        previous: null,
        reason: 'launch',
        exit: null,
        now: spec.startedAt,
      });
  } catch (err) {
    // Nothing was produced yet: a run that never started is removed, not left half made (its
    // directory, then its records and its temp directory, which the session's start may have made).
    rmSync(paths.workspace, { recursive: true, force: true });
    rmSync(paths.state, { recursive: true, force: true });
    rmSync(paths.tmp, { recursive: true, force: true });
    rmSync(paths.agentEnv, { force: true });
    removeRunVars(root, spec.id);
    if (spec.repo) await (seed.worktree ?? newBranchWork(spec.repo)).undo();
    markRemoved(root, spec.id, null, spec.startedAt);
    throw new OperationalError(`could not start the agent: ${(err as Error).message}`);
  }
  // A pass comes at the end time, schedule or not: the synthesis starts on time.
  try {
    await armEndTimer(paths, spec.endsAt, spec.startedAt, io.env);
  } catch (err) {
    io.stderr(`warning: no timer for the end time: ${(err as Error).message}; a scheduled pass will do`);
  }
  // What the digest's targets name, from this environment: passes from cron have none of it.
  rememberDigestVars(root, settings, io.env, spec.startedAt);
}
