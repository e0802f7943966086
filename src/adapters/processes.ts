import { readFileSync } from 'node:fs';

// Process identity is (pid, start time): a recycled pid is a dead agent.

/** Linux: /proc/<pid>/stat field 22, read after the last `)`; macOS: `ps -o lstart=`. */
export async function startTimeOf(pid: number): Promise<string | null> {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie (exited, not yet reaped: an orphan in a container without init) is not alive.
      if (fields[0] === 'Z' || fields[0] === 'X') return null;
      return fields[19] ?? null;
    } catch {
      return null;
    }
  }
  const { execa } = await import('execa'); // loaded only where it is needed: startup is most of a pass
  const r = await execa('ps', ['-o', 'lstart=', '-p', String(pid)], { reject: false, cwd: '/' });
  const text = String(r.stdout).trim().replace(/\s+/g, ' ');
  return r.exitCode === 0 && text ? text : null;
}

export async function isAlive(pid: number, startTime: string): Promise<boolean> {
  return (await startTimeOf(pid)) === startTime;
}

/** Signals the agent's process group (the wrapper gives it one), else the process alone. */
export function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  }
}

async function waitUntilDead(pid: number, startTime: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await isAlive(pid, startTime))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface StopGrace {
  interruptMs: number;
  terminateMs: number;
}

/** SIGINT's grace as configured (stop_grace); SIGTERM gets half of it. */
export function stopGraceOf(seconds: number): StopGrace {
  return { interruptMs: seconds * 1000, terminateMs: Math.max(1000, (seconds * 1000) / 2) };
}

export const DEFAULT_STOP_GRACE: StopGrace = stopGraceOf(10);

/**
 * SIGINT, then SIGTERM, then SIGKILL, each after its grace, to the agent's process group. Once
 * the agent is gone, what is left of its group (a child that ignored the signal) is killed too:
 * nothing of a stopped agent lives on. Returns how the agent ended.
 */
export async function stopProcess(
  pid: number,
  startTime: string,
  grace = DEFAULT_STOP_GRACE,
): Promise<'gone' | NodeJS.Signals> {
  if (!(await isAlive(pid, startTime))) return 'gone';
  const how = await interrupt(pid, startTime, grace);
  killGroupLeft(pid);
  return how;
}

async function interrupt(pid: number, startTime: string, grace: StopGrace): Promise<NodeJS.Signals> {
  signalGroup(pid, 'SIGINT');
  if (await waitUntilDead(pid, startTime, grace.interruptMs)) return 'SIGINT';
  signalGroup(pid, 'SIGTERM');
  if (await waitUntilDead(pid, startTime, grace.terminateMs)) return 'SIGTERM';
  signalGroup(pid, 'SIGKILL');
  await waitUntilDead(pid, startTime, 2_000);
  return 'SIGKILL';
}

/** The group outlives its leader while any member lives; its id is not reused meanwhile. */
function killGroupLeft(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // no member left
  }
}

/**
 * What a dead agent left in its process group (a child it started) is ended: while no process has
 * the agent's pid (Linux never gives a pid to a process while a group of that id still exists, so
 * such a group is the agent's own), or while the pid is the agent's own unreaped zombie (its parent,
 * the wrapper, was killed, and nothing reaps it).
 */
export function endLeftoverGroup(pid: number, startTime: string): void {
  if (process.platform !== 'linux') return;
  let stat: string | null = null;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    stat = null;
  }
  if (stat !== null) {
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    if (fields[0] !== 'Z' || fields[19] !== startTime) return;
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // no such group: nothing was left
  }
}
