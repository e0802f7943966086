import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

import type { RunPaths } from '../../core/run/paths.js';
import type { RunSpec } from '../../core/run/types.js';
import { resolveExecutable } from '../which.js';
import { DetachedBackend } from './detached.js';
import { interruptLocal } from './local.js';
import { SlurmBackend } from './slurm.js';
import { TmuxBackend } from './tmux.js';
import type { Backend, SessionRef, SessionView } from './types.js';

export type { Backend, SessionRef, SessionView } from './types.js';

// The backend a run recorded, and the one to use when its run.yaml cannot be read.

/** A run's backend, as its spec records it. */
export function backendOf(
  spec: Pick<RunSpec, 'backend' | 'paths'> & Partial<Pick<RunSpec, 'id' | 'endsAt' | 'limits'>>,
  paths: RunPaths,
): Backend {
  if (spec.backend === 'slurm') {
    const { id, endsAt, limits } = spec;
    return new SlurmBackend(id && endsAt && limits ? { id, endsAt, limits } : null, paths);
  }
  if (spec.backend === 'detached') return new DetachedBackend(dirname(paths.workspace));
  return new TmuxBackend(spec.paths.tmux ?? 'tmux', spec.paths.tmuxSocket);
}

/**
 * For a run whose run.yaml cannot be read (a cleanup must still happen): every backend it may
 * have run on, tmux looked up on PATH. Alive if any sees it; stopped in each.
 */
export function anyBackend(paths: RunPaths): Backend {
  const tmuxBin = resolveExecutable('tmux');
  const all: Backend[] = [
    ...(tmuxBin ? [new TmuxBackend(tmuxBin, null)] : []),
    new DetachedBackend(dirname(paths.workspace)),
    // Slurm only where a cluster is configured: asking costs a call to its controller.
    ...(resolveExecutable('squeue') && (process.env.SLURM_CONF || existsSync('/etc/slurm/slurm.conf'))
      ? [new SlurmBackend(null, paths)]
      : []),
  ];
  const first = all[0] as Backend;
  return {
    name: first.name,
    listKey: null,
    remote: false,
    sessionName: (id) => first.sessionName(id),
    start: (ref, cwd, argv) => first.start(ref, cwd, argv),
    async observe(ref: SessionRef) {
      for (const b of all) {
        // A cluster that does not answer must not keep the run from its cleanup.
        const view = await b.observe(ref).catch(() => null);
        if (view?.alive) return view;
      }
      return { alive: false, where: null };
    },
    async list() {
      const views = await Promise.all(all.map((b) => b.list().catch(() => new Map<string, SessionView>())));
      return new Map(views.flatMap((v) => [...v]));
    },
    interrupt: (ref, session, grace) => interruptLocal(ref, session, grace),
    async stop(ref: SessionRef) {
      for (const b of all) await b.stop(ref).catch(() => undefined);
    },
  };
}
