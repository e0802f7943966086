import { basename, dirname, join } from 'node:path';

import { intIn } from '../core/run/bounds.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { readHead, writeFileAtomic } from './files.js';
import { selfCommand } from './install.js';
import { isAlive, signalGroup, startTimeOf } from './processes.js';

// A wait must end on time without a resident monitor: a detached `sleep`, then one pass. The
// timer is recorded like an agent (pid and start time), so a run that ends (stop, DONE, FAILED)
// cancels it, and a timer that already fired (while the run was paused, say) is armed again.

interface WakeTimer {
  at: string;
  pid: number | null;
  startTime: string | null;
}

/** `<key> <pid> <start time>` (the key: the ISO time it wakes at); older records hold the time alone. */
function readWakeTimer(file: string): WakeTimer | null {
  // Bounded and checked: a pid out of range is no process of ours to look at or signal.
  const text = readHead(file, 512)?.trim();
  if (!text) return null;
  const [at, pid, ...start] = text.split(' ');
  const n = pid && /^\d{1,10}$/.test(pid) ? intIn(Number(pid), 1, 2 ** 31 - 1) : null;
  return { at: at as string, pid: n, startTime: start.join(' ') || null };
}

async function timerAlive(t: WakeTimer | null): Promise<boolean> {
  return !!t && t.pid !== null && t.startTime !== null && (await isAlive(t.pid, t.startTime));
}

/** Armed once per wake time: a pass that finds that timer still sleeping arms nothing. */
export async function armWakeTimer(
  spec: RunSpec,
  paths: RunPaths,
  until: Date,
  now: Date,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  return armTimer(paths.wake, paths, until, now, env);
}

/**
 * The timer for the run's end time (or its synthesis's deadline), beside the one for waits: a
 * night without a schedule still ends on time, its agent interrupted for the synthesis.
 * OVERNIGHT_END_TIMER=0 leaves it out, for tests that play the pass at the end time themselves.
 */
export async function armEndTimer(
  paths: RunPaths,
  until: Date,
  now: Date,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  if (env.OVERNIGHT_END_TIMER === '0') return false;
  return armTimer(paths.endWake, paths, until, now, env);
}

/**
 * Sleeps until its time, then becomes a pass; it ends by itself within a second of the run's end
 * (DONE or FAILED in its records), so a timer whose record a killed pass never wrote, or that no
 * cancel reached, never outlives the run. In the last second it looks five times a second (where
 * `sleep` takes fractions), so that it fires within a fifth of a second of its second, not one.
 */
const TIMER_SCRIPT =
  'end=$0; ' +
  'while [ ! -e "$3/DONE" ] && [ ! -e "$3/FAILED" ]; do ' +
  'now=$(date +%s); ' +
  'if [ "$now" -ge "$end" ]; then exec "$1" "$2" reconcile --retry-lock 5000 --for-run "$4"; fi; ' +
  'if [ $((end - now)) -le 1 ]; then sleep 0.2 2> /dev/null || sleep 1; else sleep 1; fi; done';

/** The timer's command line: it runs `<node> <cli> reconcile` once the epoch second of `until` is reached. */
export function timerArgs(
  until: Date,
  now: Date,
  self: { node: string; cli: string },
  records: string,
): string[] {
  // An absolute second at or after `until`: a count of seconds from the shell's start wakes up to
  // a second early when its sleeps run late (a loaded machine), finds the wait not over, and
  // leaves nobody to wake it.
  const end = Math.max(Math.ceil(until.getTime() / 1000), Math.floor(now.getTime() / 1000) + 1);
  return ['-c', TIMER_SCRIPT, String(end), self.node, self.cli, records, basename(records)];
}

function armTimer(
  file: string,
  paths: RunPaths,
  until: Date,
  now: Date,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  return armShell(
    file,
    until.toISOString(),
    () => timerArgs(until, now, selfCommand(), paths.state),
    paths,
    env,
  );
}

/**
 * Starts `/bin/sh <args()>` detached, a pass to be, recorded in `file` under `key` (the time it
 * wakes at, or what it watches): armed once per key, while that shell lives. Its arguments are
 * made only when it is started: every pass looks at every run's timer.
 */
export async function armShell(
  file: string,
  key: string,
  args: () => string[],
  paths: RunPaths,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const armed = readWakeTimer(file);
  // A timer that fired has become this pass: it sleeps no more, so the wait is armed again.
  if (armed?.at === key && armed.pid !== process.pid && (await timerAlive(armed))) return false;
  await cancelTimer(file);
  const root = dirname(paths.workspace);
  const { execa } = await import('execa');
  const log = join(root, 'reconcile.log');
  const timer = execa('/bin/sh', args(), {
    detached: true,
    cleanup: false,
    cwd: root,
    stdin: 'ignore',
    stdout: { file: log, append: true },
    stderr: { file: log, append: true },
    env: { ...env, OVERNIGHT_HOME: root },
  });
  timer.catch(() => {}); // it outlives this process; nobody waits for it
  timer.unref();
  const pid = timer.pid ?? null;
  const startTime = pid === null ? null : await startTimeOf(pid);
  writeFileAtomic(file, [key, pid, startTime].filter((x) => x !== null).join(' ') + '\n');
  return true;
}

/** Ends the run's timers, for waits and for its end time, and the watch of an agent whose wrapper is gone. */
export async function cancelWakeTimer(paths: RunPaths): Promise<void> {
  await cancelTimer(paths.wake);
  await cancelTimer(paths.endWake);
  await cancelTimer(paths.agentWatch);
}

/**
 * Ends a timer (its whole process group: the shell and its sleep) unless it is the process
 * asking: a timer that fired has become this very pass.
 */
async function cancelTimer(file: string): Promise<void> {
  const t = readWakeTimer(file);
  if (t && t.pid !== process.pid && (await timerAlive(t))) signalGroup(t.pid as number, 'SIGTERM');
}
