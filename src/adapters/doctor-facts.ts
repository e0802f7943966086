import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  realpathSync,
  statfsSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

import type { AgentFacts, BinaryFacts } from '../core/doctor/binaries.js';
import type { CommandRun } from '../core/doctor/checks.js';
import {
  mountFor,
  parseMountOutput,
  parseProcMounts,
  type Mount,
  type RunsRootFacts,
} from '../core/doctor/root.js';
import type { ScheduleFacts } from '../core/doctor/schedule.js';
import { rootPaths } from '../core/run/paths.js';
import { runBounded } from './command.js';
import { readText } from './files.js';
import { resolveClaude } from './install.js';
import { resolveExecutable } from './which.js';

// The facts `overnight doctor` judges, gathered for one environment (the shell's, or the one a
// schedule entry gives). Thin: the verdicts are in core/doctor*.

export const RUN_TIMEOUT_MS = 5000;

type Env = Record<string, string | undefined>;

/** A short command in exactly `env` (nothing inherited), stdin closed, with a deadline. */
export async function runBriefly(
  file: string,
  args: string[],
  env: Env,
  timeoutMs = RUN_TIMEOUT_MS,
): Promise<CommandRun> {
  const r = await runBounded(file, args, { env, timeoutMs, maxBuffer: 1024 * 1024 });
  if ('thrown' in r) return { exitCode: null, stdout: '', stderr: '', error: r.thrown ?? 'could not start' };
  const out = { stdout: r.stdout, stderr: r.stderr };
  if (r.timedOut) return { exitCode: null, ...out, error: `no answer within ${timeoutMs / 1000} s` };
  if (r.exitCode === undefined)
    return {
      exitCode: null,
      ...out,
      error: r.signal ? `killed by ${r.signal}` : (r.originalMessage ?? r.shortMessage ?? 'could not start'),
    };
  return { exitCode: r.exitCode, ...out };
}

/** Where a command is found on `env.PATH`, and with --as-scheduler where the shell would find it instead. */
function locate(command: string, env: Env, interactive?: { command: string; path: string }): BinaryFacts {
  const path = env.PATH ?? '';
  const resolved = resolveClaude(command, path);
  const facts: BinaryFacts = { command, path, resolved };
  if (!resolved && interactive) facts.interactive = resolveExecutable(interactive.command, interactive.path);
  return facts;
}

export async function agentFacts(
  command: string,
  env: Env,
  interactive?: { command: string; path: string },
): Promise<AgentFacts> {
  const facts: AgentFacts = locate(command, env, interactive);
  if (facts.resolved) {
    [facts.version, facts.help] = await Promise.all([
      runBriefly(facts.resolved, ['--version'], env),
      runBriefly(facts.resolved, ['--help'], env),
    ]);
  }
  return facts;
}

export async function tmuxFacts(env: Env, interactivePath?: string): Promise<BinaryFacts> {
  const facts = locate(
    'tmux',
    env,
    interactivePath === undefined ? undefined : { command: 'tmux', path: interactivePath },
  );
  if (facts.resolved) facts.version = await runBriefly(facts.resolved, ['-V'], env);
  return facts;
}

/** The mount table: /proc on Linux, `mount` on macOS and the BSDs; empty where neither works. */
async function mounts(): Promise<Mount[]> {
  if (process.platform === 'linux') {
    try {
      return parseProcMounts(readFileSync('/proc/self/mounts', 'utf8'));
    } catch {
      return [];
    }
  }
  if (process.platform === 'win32') return [];
  const r = await runBriefly('/sbin/mount', [], { PATH: '/sbin:/usr/sbin:/usr/bin:/bin' });
  return r.exitCode === 0 ? parseMountOutput(r.stdout) : [];
}

/** The runs root's directory facts, and those of the filesystem it is (or will be) on. */
export async function runsRootFacts(path: string): Promise<RunsRootFacts> {
  let checkedPath = path;
  while (!existsSync(checkedPath) && dirname(checkedPath) !== checkedPath) checkedPath = dirname(checkedPath);
  const uid = process.getuid?.() ?? null;
  const facts: RunsRootFacts = {
    path,
    exists: false,
    isDirectory: false,
    mode: null,
    ownerUid: null,
    uid,
    checkedPath,
    mount: null,
    freeBytes: null,
    writeError: null,
    fileInTheWay: null,
  };
  try {
    const st = statSync(path);
    Object.assign(facts, {
      exists: true,
      isDirectory: st.isDirectory(),
      mode: st.mode & 0o777,
      ownerUid: st.uid,
    });
  } catch {
    // absent (or unreadable): launch creates it
  }
  try {
    facts.mount = mountFor(realpathSync(checkedPath), await mounts());
  } catch {
    // unknown filesystem
  }
  try {
    const fs = statfsSync(checkedPath);
    facts.freeBytes = fs.bavail * fs.bsize;
  } catch {
    // unknown free space
  }
  const dir = facts.exists ? (facts.isDirectory ? path : null) : checkedPath;
  if (!facts.exists && !isDirectory(checkedPath)) facts.fileInTheWay = checkedPath;
  else if (dir) facts.writeError = writeProbe(dir);
  return facts;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether a file can be created (and removed) in `dir`: null when it can, else the error code. */
function writeProbe(dir: string): string | null {
  const probe = join(dir, `.overnight-doctor-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    unlinkSync(probe);
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'EIO';
  }
}

function readJson(path: string): { value?: unknown; error?: string } {
  try {
    const text = readText(path);
    return text === null ? {} : { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0] };
  }
}

/** The schedule marker and the heartbeat in the runs root, as found (judged in core). */
export function scheduleFacts(root: string): ScheduleFacts {
  const rp = rootPaths(root);
  const marker = readJson(rp.schedule);
  const facts: ScheduleFacts = {
    markerPath: rp.schedule,
    marker: marker.value,
    heartbeat: readJson(rp.heartbeat).value,
  };
  if (marker.error) facts.markerError = marker.error;
  return facts;
}
