// Polling with a deadline, and the process table as /proc shows it, for the integration tests.
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `fn` until it returns something truthy (a throw counts as not yet); fails at the deadline. */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  opts: { timeout?: number; interval?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const { timeout = 15_000, interval = 100, what = fn.toString().slice(0, 120) } = opts;
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `waitFor timed out after ${timeout} ms: ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
      );
    await sleep(interval);
  }
}

/** Alive and not a zombie (a container's PID 1 may never reap an orphan). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/** Every process's argv, NUL-joined (for "the task is in no argv"). */
export function allCmdlines(): { pid: number; cmdline: string }[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((p) => ({ pid: Number(p), cmdline: readProc(p, 'cmdline') }));
}

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
