import { homedir, userInfo } from 'node:os';
import { resolve } from 'node:path';

import * as sched from '../adapters/scheduler.js';
import { DURATION_HINT, parseDuration } from '../core/config/duration.js';
import { defaultSettings } from '../core/config/settings.js';
import { UsageError } from '../core/errors.js';
import { BACKENDS, DEFAULT_EVERY, isBackend, type Backend } from '../core/schedule/cron.js';
import { schedulerProblem } from '../core/schedule/here.js';

// What `overnight schedule` needs to know before it touches anything: the backend, the interval,
// whether the runs root is the default one, and the test-only extra environment.

export function checkBackend(value: string): Backend {
  if (!isBackend(value))
    throw new UsageError(
      `--backend ${JSON.stringify(value)} is not a backend; use one of ${BACKENDS.join(', ')}`,
    );
  if (value === 'launchd' && process.platform !== 'darwin')
    throw new UsageError('--backend launchd works on macOS only; on Linux use systemd or cron');
  if (value === 'systemd' && process.platform === 'darwin')
    throw new UsageError('--backend systemd works on Linux only; on macOS use launchd or cron');
  return value;
}

/** The scheduler starts jobs with the account's home, not this shell's $HOME: compare with that. */
export function isDefaultRoot(root: string): boolean {
  let home: string;
  try {
    home = userInfo().homedir;
  } catch {
    home = homedir();
  }
  return resolve(defaultSettings(home).runsDir) === root;
}

export async function defaultBackend(env: NodeJS.ProcessEnv): Promise<Backend> {
  if (process.platform === 'darwin') return 'launchd';
  return (await sched.systemdUserAvailable(env)) ? 'systemd' : 'cron';
}

/**
 * Why `backend` cannot be installed here, with what can and what runs meanwhile; null when it can.
 * `chosen`: named with --backend (a default backend was picked because it answered).
 */
export async function installProblem(
  backend: Backend,
  chosen: boolean,
  env: NodeJS.ProcessEnv,
  cmd: string,
): Promise<string | null> {
  if (backend === 'launchd' || (backend === 'cron' && sched.hasCrontab(env))) return null;
  if (backend === 'systemd' && !chosen) return null;
  return schedulerProblem(backend, chosen, await sched.schedulersHere(env), cmd);
}

export function parseEvery(text: string): number {
  const seconds = parseDuration(text);
  if (seconds === undefined || seconds < 1)
    throw new UsageError(
      `--every ${JSON.stringify(text)} is not an interval; ` +
        `expected ${DURATION_HINT}, 1s or more (default ${DEFAULT_EVERY})`,
    );
  return seconds;
}

/** Test-only: OVERNIGHT_SCHEDULE_EXTRA_ENV="NAME=value NAME=value" adds to the entry's environment. */
export function extraEnv(env: NodeJS.ProcessEnv): [string, string][] {
  const raw = env.OVERNIGHT_SCHEDULE_EXTRA_ENV?.trim();
  if (!raw) return [];
  return raw.split(/\s+/).map((kv) => {
    const eq = kv.indexOf('=');
    if (eq < 1) throw new UsageError(`OVERNIGHT_SCHEDULE_EXTRA_ENV: ${JSON.stringify(kv)} is not NAME=value`);
    return [kv.slice(0, eq), kv.slice(eq + 1)];
  });
}
