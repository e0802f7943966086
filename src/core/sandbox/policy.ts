// What a run's sandbox lets the agent's commands and the check touch: written, hidden, reached.
// One policy per run, derived from its spec and where things are; Claude Code's sandbox (the
// agent's Bash), the check's bubblewrap and the launch probe are all made from it. Pure.

/** run.yaml's `sandbox`: absent when the run has none (turned off, or not available at launch). */
export interface SandboxSpec {
  /** Domains the agent's commands and the check may reach (`sandbox_network`); none by default. */
  network: string[];
  /** More directories they may write, as the person gave them (`sandbox_write`). */
  write: string[];
}

/**
 * Secrets every person is likely to keep, relative to their home: unreadable by the agent's
 * commands, its Read tool and the check.
 */
export const HOME_SECRETS = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.config/gh',
  '.netrc',
  '.npmrc',
  '.docker/config.json',
  '.kube',
  '.git-credentials',
  '.pypirc',
  '.config/gcloud',
  '.azure',
  '.claude/.credentials.json',
] as const;

/** Where one run's things are, as the policy needs them (absolute paths). */
export interface PolicyPlaces {
  /** The runs root: every run, overnight's records and the launch environments are below it. */
  root: string;
  /** The run's directory (its files for the person: findings/, questions.md, REPORT.md). */
  runDir: string;
  /** A repository run's worktree; null for a plain run. */
  worktree: string | null;
  /** The run's own temp directory. */
  tmp: string;
  home: string;
  /** overnight's own configuration directory (its notification secrets may be in it). */
  configDir: string;
}

export interface Policy {
  /** Writable: the run's directory, the worktree, the run's temp directory, the person's extra. */
  write: string[];
  /** Unreadable: the runs root as a whole, the person's secrets, overnight's configuration. */
  denyRead: string[];
  /** Readable again inside what is denied: the run's own directories. */
  allowRead: string[];
  network: string[];
}

export function runPolicy(spec: SandboxSpec, at: PolicyPlaces): Policy {
  const own = [at.runDir, ...(at.worktree ? [at.worktree] : []), at.tmp];
  return {
    write: unique([...own, ...spec.write]),
    denyRead: unique([at.root, ...HOME_SECRETS.map((s) => `${at.home}/${s}`), at.configDir]),
    allowRead: unique([...own, ...spec.write.filter((w) => inside(w, at.root))]),
    network: [...spec.network],
  };
}

/** Whether `path` is `dir` or below it (plain absolute paths). */
export function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

const unique = (list: string[]) => [...new Set(list)];

/** A domain the network list may name: a host name, or `*.` and one. */
const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why a `sandbox_network` entry is not a domain, or null when it is one. */
export function domainProblem(entry: string): string | null {
  if (entry.length <= 253 && DOMAIN.test(entry)) return null;
  return (
    `"${entry.slice(0, 80)}" is not a domain: give host names such as packages.example.com or ` +
    '*.example.net (no scheme, port or path)'
  );
}
