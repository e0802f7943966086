import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

import { parseAgentEnv } from '../core/run/agent-env.js';
import { agentCwd, rootPaths, type RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionMode } from '../core/run/types.js';
import type { SandboxFacts } from '../core/sandbox/available.js';
import { bwrapArgs, checkPolicy, pathsToLook } from '../core/sandbox/bwrap.js';
import { claudeSettings } from '../core/sandbox/claude-settings.js';
import { runPolicy, type Policy, type PolicyPlaces } from '../core/sandbox/policy.js';
import { readText, writeFileAtomic } from './files.js';
import { resolveExecutable } from './which.js';

// The sandbox on this machine: whether it can run, the settings file each session of a run starts
// with, and the places a run's policy names. The policy itself is core/sandbox's.

/** What this machine has, looked up on the launch environment's PATH; bubblewrap tried once. */
export function sandboxFacts(env: NodeJS.ProcessEnv): SandboxFacts {
  const bwrap = resolveExecutable('bwrap', env.PATH ?? '');
  return {
    platform: process.platform,
    bwrap,
    socat: resolveExecutable('socat', env.PATH ?? ''),
    sandboxExec:
      process.platform === 'darwin' && existsSync('/usr/bin/sandbox-exec') ? '/usr/bin/sandbox-exec' : null,
    bwrapError: bwrap && process.platform === 'linux' ? bwrapTrial(bwrap) : null,
  };
}

/** Whether bubblewrap can make its namespaces here (user namespaces may be refused); null when it can. */
function bwrapTrial(bwrap: string): string | null {
  const r = spawnSync(bwrap, ['--ro-bind', '/', '/', '--unshare-pid', '--dev', '/dev', '--', '/bin/true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  });
  if (r.status === 0) return null;
  const said = String(r.stderr ?? '')
    .split('\n')[0]
    ?.trim();
  return (said || r.error?.message || `exit ${r.status ?? 'by a signal'}`).slice(0, 200);
}

/** overnight's configuration directory (where notification tokens may be kept). */
export function overnightConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'overnight');
}

/** Where one run's things are, for its policy. */
export function placesOf(
  root: string,
  spec: Pick<RunSpec, 'repo'>,
  paths: RunPaths,
  home: string,
  env: NodeJS.ProcessEnv,
): PolicyPlaces {
  return {
    root,
    runDir: paths.workspace,
    worktree: spec.repo?.worktree ?? null,
    tmp: paths.tmp,
    home,
    configDir: overnightConfigDir(env, home),
  };
}

/** The run's policy, or null for a run without a sandbox. */
export function policyOf(
  root: string,
  spec: Pick<RunSpec, 'repo' | 'sandbox'>,
  paths: RunPaths,
  home: string,
  env: NodeJS.ProcessEnv,
): Policy | null {
  return spec.sandbox ? runPolicy(spec.sandbox, placesOf(root, spec, paths, home, env)) : null;
}

/** The run's temp directory (its parent too), private to the person. */
export function ensureRunTmp(paths: RunPaths): void {
  mkdirSync(dirname(paths.tmp), { recursive: true, mode: 0o700 });
  mkdirSync(paths.tmp, { recursive: true, mode: 0o700 });
}

/**
 * Writes the settings file a session starts with and returns its path. Every other entry of the
 * runs root (another run, a worktree, overnight's own files) is named in the file tools' Read
 * rules one by one, since a rule cannot say "all but this run": Claude Code's Read tool is not
 * sandboxed. Listed afresh for every session, so a run made since is covered from the next.
 */
export function writeSessionSettings(
  root: string,
  spec: RunSpec,
  paths: RunPaths,
  home: string,
  env: NodeJS.ProcessEnv,
  mode: SessionMode = 'initial',
): string {
  const policy = policyOf(root, spec, paths, home, env);
  const places = placesOf(root, spec, paths, home, env);
  const own = new Set([paths.workspace, spec.repo?.worktree, paths.tmp].filter((p) => p !== undefined));
  const unreadable = [
    ...(policy ? policy.denyRead.filter((p) => p !== root) : deniedWithout(places)),
    ...othersIn(root, own),
    ...othersIn(rootPaths(root).worktrees, own),
    ...othersIn(dirname(paths.tmp), own),
  ];
  if (policy) ensureRunTmp(paths);
  const file = join(paths.state, 'claude-settings.json');
  // The synthesis writes the report, never the branch: the final check ran on it as it is.
  const readOnly = mode === 'synthesis' && spec.repo && spec.verify ? [spec.repo.worktree] : [];
  writeFileAtomic(file, JSON.stringify(claudeSettings({ policy, unreadable, readOnly }), null, 2) + '\n');
  return file;
}

/** A run without a sandbox still keeps the file tools out of the secrets and overnight's config. */
function deniedWithout(places: PolicyPlaces): string[] {
  return runPolicy({ network: [], write: [] }, places).denyRead.filter((p) => p !== places.root);
}

/**
 * The entries of `dir` other than the run's own (records, other runs, the lock, …), as paths. A
 * directory that holds one of the run's own (worktrees/, .tmp/) is not one: its entries are listed.
 */
function othersIn(dir: string, own: ReadonlySet<string>): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (!own.has(path) && ![...own].some((o) => o.startsWith(`${path}/`))) out.push(path);
  }
  return out;
}

/** Which of `paths` exist, and as what (a link counts as what it is: never mounted through). */
export function kindsOf(paths: readonly string[]): Map<string, 'dir' | 'file'> {
  const kinds = new Map<string, 'dir' | 'file'>();
  for (const p of paths) {
    try {
      const st = lstatSync(p);
      if (st.isDirectory()) kinds.set(p, 'dir');
      else if (st.isFile()) kinds.set(p, 'file');
    } catch {
      // absent: nothing to hide or show
    }
  }
  return kinds;
}

/** How the check's processes are ended as a whole (src/wrapper/check.sh), and what it runs. */
export interface CheckLaunch {
  mode: 'bwrap' | 'setsid' | 'jobs';
  argv: string[];
  /** A file of the records given on its standard input (the review's prompt). */
  input?: string;
}

/**
 * The check's argv: confined by bubblewrap with the run's policy (writable only where it starts
 * and a fresh /tmp, no network), unless the person let it run unconfined (or it was launched
 * before checks were confined). The home is the one the run's agent has (its captured environment).
 */
export function checkLaunch(spec: RunSpec, paths: RunPaths, command: string): CheckLaunch {
  const sh = ['/bin/sh', '-c', command];
  const env = Object.fromEntries(parseAgentEnv(readText(paths.agentEnv) ?? ''));
  if (spec.verify?.unconfined) {
    const setsid = resolveExecutable('setsid', '/usr/bin:/bin:/usr/sbin:/sbin');
    return setsid ? { mode: 'setsid', argv: [setsid, ...sh] } : { mode: 'jobs', argv: sh };
  }
  // Launched before checks were confined, a run has none recorded: this machine's, if it has one.
  const bwrap = spec.paths.bwrap ?? resolveExecutable('bwrap', env.PATH ?? '');
  if (!bwrap) {
    // Never unconfined unless the person said so: the step ends at once, said in its output.
    const why =
      'overnight: the check was not run: it cannot be confined here (bubblewrap not found) and ' +
      'verify_unconfined is not set';
    return { mode: 'jobs', argv: ['/bin/sh', '-c', 'printf "%s\\n" "$1"; exit 126', 'check', why] };
  }
  const home = env.HOME || homedir();
  const root = dirname(paths.workspace);
  const agent = runPolicy(spec.sandbox ?? { network: [], write: [] }, placesOf(root, spec, paths, home, env));
  // The check has no network yet: a proxy for the listed domains is not built.
  const policy = { ...checkPolicy(agent, spec.repo?.worktree ?? paths.workspace, paths.tmp), network: [] };
  ensureRunTmp(paths);
  const args = bwrapArgs({
    policy,
    cwd: agentCwd(spec, paths),
    tmp: paths.tmp,
    kinds: kindsOf(pathsToLook(policy)),
  });
  return { mode: 'bwrap', argv: [bwrap, ...args, '--', ...sh] };
}
