// Which backend runs a run's sessions: chosen at launch, recorded in run.yaml. Pure.

/**
 * How a session runs: in tmux on overnight's own server, detached (setsid) with no terminal, or as
 * a Slurm batch job on a cluster's node.
 */
export const BACKENDS = ['tmux', 'detached', 'slurm'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** Named in the design, not built yet: refused with a message that says so. */
const PLANNED: Record<string, string> = {
  kubernetes: 'the kubernetes backend exists on paper only; use tmux, detached or slurm',
};

export function isBackend(name: unknown): name is BackendName {
  return (BACKENDS as readonly unknown[]).includes(name);
}

/** Why a backend name cannot be used; null when it can. */
export function backendProblem(name: string): string | null {
  if (isBackend(name)) return null;
  return PLANNED[name] ?? `unknown backend "${name}"; expected one of ${BACKENDS.join(', ')}`;
}

export type BackendChoice = { backend: BackendName } | { error: string };

/** The backend a run gets: the one asked for, else tmux where it exists, else detached. */
export function chooseBackend(wanted: BackendName | null, tmuxFound: boolean): BackendChoice {
  if (wanted === 'tmux' && !tmuxFound)
    return {
      error:
        'tmux was not found on PATH; install it (apt-get install tmux, or brew install tmux), ' +
        'or launch with --backend detached',
    };
  return { backend: wanted ?? (tmuxFound ? 'tmux' : 'detached') };
}

/** How a person watches a run's agent as it works: attach to tmux, or follow its log. */
export function watchHow(backend: BackendName, attach: string, logsFollow: string): string {
  return backend === 'tmux' ? attach : logsFollow;
}
