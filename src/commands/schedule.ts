import { mkdirSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';

import { usableRunsRoot } from '../adapters/runs-root.js';
import * as sched from '../adapters/scheduler.js';
import {
  readHeartbeat,
  readScheduleMarker,
  removeScheduleMarker,
  writeScheduleMarker,
} from '../adapters/supervision.js';
import { resolveExecutable } from '../adapters/which.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { DURATION_HINT, formatDuration, parseDuration } from '../core/config/duration.js';
import { defaultSettings, type Settings } from '../core/config/settings.js';
import { UsageError } from '../core/errors.js';
import {
  BACKENDS,
  buildPath,
  cronBlock,
  cronTimeFields,
  DEFAULT_EVERY,
  isBackend,
  scheduleNames,
  SYSTEM_PATH_DIRS,
  type Backend,
  type InstalledEntry,
  type ScheduleValues,
} from '../core/schedule/cron.js';
import { launchdPlist, systemdUnits } from '../core/schedule/units.js';
import { ago } from '../core/status/table.js';

// `overnight schedule install|uninstall|status`: who runs `overnight reconcile` when nobody is there.

export type ScheduleAction = 'install' | 'uninstall' | 'status';

export interface ScheduleOptions {
  every?: string;
  backend?: string;
  json?: boolean;
}

const LINGER =
  'systemd user timers stop when you log out unless lingering is on: run `loginctl enable-linger $USER` once';

export async function scheduleCommand(
  action: ScheduleAction,
  opts: ScheduleOptions,
  io: Io,
): Promise<number> {
  const backend = opts.backend === undefined ? undefined : checkBackend(opts.backend);
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, action === 'install' ? 'create' : 'read');
  const names = scheduleNames(root, isDefaultRoot(root));
  if (action === 'install') return install(settings, backend, opts, io);
  if (action === 'uninstall') return uninstall(root, backend, opts, io);
  return status(root, names, backend, opts, io);
}

function checkBackend(value: string): Backend {
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
function isDefaultRoot(root: string): boolean {
  let home: string;
  try {
    home = userInfo().homedir;
  } catch {
    home = homedir();
  }
  return resolve(defaultSettings(home).runsDir) === root;
}

async function defaultBackend(env: NodeJS.ProcessEnv): Promise<Backend> {
  if (process.platform === 'darwin') return 'launchd';
  return (await sched.systemdUserAvailable(env)) ? 'systemd' : 'cron';
}

function parseEvery(text: string): number {
  const seconds = parseDuration(text);
  if (seconds === undefined || seconds < 1)
    throw new UsageError(
      `--every ${JSON.stringify(text)} is not an interval; ` +
        `expected ${DURATION_HINT}, 1s or more (default ${DEFAULT_EVERY})`,
    );
  return seconds;
}

/** Test-only: OVERNIGHT_SCHEDULE_EXTRA_ENV="NAME=value NAME=value" adds to the entry's environment. */
function extraEnv(env: NodeJS.ProcessEnv): [string, string][] {
  const raw = env.OVERNIGHT_SCHEDULE_EXTRA_ENV?.trim();
  if (!raw) return [];
  return raw.split(/\s+/).map((kv) => {
    const eq = kv.indexOf('=');
    if (eq < 1) throw new UsageError(`OVERNIGHT_SCHEDULE_EXTRA_ENV: ${JSON.stringify(kv)} is not NAME=value`);
    return [kv.slice(0, eq), kv.slice(eq + 1)];
  });
}

async function install(
  settings: Settings,
  chosen: Backend | undefined,
  opts: ScheduleOptions,
  io: Io,
): Promise<number> {
  const root = settings.runsDir;
  const defaultRoot = isDefaultRoot(root);
  const everyText = opts.every ?? DEFAULT_EVERY;
  const everySeconds = parseEvery(everyText);
  const backend = chosen ?? (await defaultBackend(io.env));
  if (backend === 'cron') cronTimeFields(everySeconds, everyText);

  const tmux = resolveExecutable('tmux', io.env.PATH);
  const claude = resolveExecutable(settings.claude, io.env.PATH);
  const found = [process.execPath, tmux, claude].filter((p): p is string => p !== null);
  const values: ScheduleValues = {
    node: process.execPath,
    cli: sched.cliPath(),
    runsRoot: root,
    defaultRoot,
    path: buildPath([...found.map((p) => dirname(p)), ...SYSTEM_PATH_DIRS]),
    everySeconds,
    extraEnv: extraEnv(io.env),
  };
  const names = scheduleNames(root, defaultRoot);
  // The log is appended to in the runs root: it must exist before the first pass.
  mkdirSync(root, { recursive: true, mode: 0o700 });

  let where: string;
  if (backend === 'cron') {
    await sched.editUserCrontab(root, cronBlock(values), io.env);
    where = 'crontab';
  } else if (backend === 'launchd') {
    where = await sched.installLaunchd(names, launchdPlist(values), io.env);
  } else {
    where = (await sched.installSystemd(names, systemdUnits(values), io.env)).timer;
  }
  // One scheduler per runs root: an entry in another backend goes, once the new one is in place.
  const elsewhere = (await sched.findEntries(root, names, io.env)).filter((e) => e.backend !== backend);
  for (const e of elsewhere) {
    await removeEntry(e.backend, root, io.env);
    if (!opts.json)
      io.stdout(`removed the ${e.backend} entry for ${root} (${e.where}): ${backend} replaces it`);
  }

  const installedAt = io.now();
  writeScheduleMarker(root, {
    backend,
    everySeconds,
    installedAt,
    path: values.path,
    node: values.node,
    env: defaultRoot ? {} : { OVERNIGHT_HOME: root },
  });

  if (opts.json) {
    io.stdout(
      JSON.stringify({
        backend,
        everySeconds,
        runsRoot: root,
        where,
        log: names.log,
        path: values.path,
        installedAt,
      }),
    );
    return 0;
  }
  io.stdout(`${backend}: \`overnight reconcile\` every ${formatDuration(everySeconds)} for ${root}`);
  io.stdout(`  entry:  ${where}`);
  io.stdout(`  log:    ${names.log}`);
  io.stdout(`  PATH:   ${values.path}`);
  if (!tmux) io.stderr('warning: tmux was not found on PATH; runs cannot start until it is installed');
  if (!claude)
    io.stderr(
      `warning: the agent binary "${settings.claude}" was not found on PATH; ` +
        "its directory is not on the schedule's PATH",
    );
  if (backend === 'systemd') io.stdout(`note: ${LINGER}`);
  return 0;
}

async function removeEntry(backend: Backend, root: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const names = scheduleNames(root, isDefaultRoot(root));
  if (backend === 'cron') return sched.editUserCrontab(root, null, env);
  if (backend === 'launchd') return sched.uninstallLaunchd(names, env);
  return sched.uninstallSystemd(names, env);
}

async function uninstall(
  root: string,
  only: Backend | undefined,
  opts: ScheduleOptions,
  io: Io,
): Promise<number> {
  const names = scheduleNames(root, isDefaultRoot(root));
  const entries = await sched.findEntries(root, names, io.env, only);
  const removed: InstalledEntry[] = [];
  for (const e of entries) if (await removeEntry(e.backend, root, io.env)) removed.push(e);
  const marker = readScheduleMarker(root);
  if (!only || marker?.backend === only) removeScheduleMarker(root);
  if (opts.json) {
    io.stdout(
      JSON.stringify({
        runsRoot: root,
        removed: removed.map((e) => ({ backend: e.backend, where: e.where })),
      }),
    );
    return 0;
  }
  if (removed.length === 0)
    io.stdout(`no schedule was installed for ${root}${only ? ` in ${only}` : ''}; nothing to remove`);
  for (const e of removed) io.stdout(`removed the ${e.backend} entry for ${root} (${e.where})`);
  return 0;
}

async function status(
  root: string,
  names: ReturnType<typeof scheduleNames>,
  only: Backend | undefined,
  opts: ScheduleOptions,
  io: Io,
): Promise<number> {
  const entries = await sched.findEntries(root, names, io.env, only);
  const marker = readScheduleMarker(root);
  const beat = readHeartbeat(root);
  const now = io.now();
  const every = entries.find((e) => e.everySeconds !== null)?.everySeconds ?? marker?.everySeconds ?? null;
  // Only passes the schedule ran count as proof that it fires (an agent's exit starts passes too).
  const scheduledAt = beat?.scheduledAt ?? null;
  const age = scheduledAt ? (now.getTime() - scheduledAt.getTime()) / 1000 : null;
  const warnings: string[] = [];
  if (entries.length === 0)
    warnings.push(
      `no schedule is installed for ${root}: nothing restarts crashed runs between exits; ` +
        'run `overnight schedule install`',
    );
  if (entries.length > 1)
    warnings.push(
      `${entries.map((e) => e.backend).join(' and ')} both run passes for ${root}; ` +
        '`overnight schedule install --backend <one>` keeps one',
    );
  if (marker && !entries.some((e) => e.backend === marker.backend) && (!only || only === marker.backend)) {
    warnings.push(
      `${root}/.schedule.json says ${marker.backend}, but no ${marker.backend} entry was found; ` +
        'run `overnight schedule install` again',
    );
  }
  if (entries.length > 0 && every !== null && age !== null && age > 2 * every)
    warnings.push(
      `no scheduled pass for ${formatDuration(age)}, more than two intervals: ` +
        `check ${names.log} and \`overnight doctor\``,
    );
  if (entries.length > 0 && !scheduledAt)
    warnings.push(
      'no scheduled pass has run yet; ' +
        `check ${names.log} if this lasts more than ${formatDuration(every ?? 300)}`,
    );

  if (opts.json) {
    io.stdout(
      JSON.stringify(
        { runsRoot: root, installed: entries.length > 0, entries, marker, lastPass: beat, warnings },
        null,
        2,
      ),
    );
    return 0;
  }
  io.stdout(`runs root: ${root}`);
  if (entries.length === 0) io.stdout('schedule:  none');
  for (const e of entries) {
    const interval = e.everySeconds === null ? '? (entry not recognised)' : formatDuration(e.everySeconds);
    io.stdout(`schedule:  ${e.backend}, every ${interval} (${e.where})`);
  }
  if (beat) {
    const details = [
      beat.durationMs !== undefined ? `took ${beat.durationMs} ms` : '',
      beat.runs !== undefined ? `${beat.runs} run${beat.runs === 1 ? '' : 's'}` : '',
      beat.actions !== undefined ? `${beat.actions} action${beat.actions === 1 ? '' : 's'}` : '',
    ].filter(Boolean);
    const more = details.length ? '; ' + details.join(', ') : '';
    io.stdout(`last pass: ${ago(beat.at, now)} (${beat.at.toISOString()}${more})`);
  } else {
    io.stdout('last pass: never');
  }
  const lastScheduled = scheduledAt ? `${ago(scheduledAt, now)} (${scheduledAt.toISOString()})` : 'never';
  io.stdout(`last scheduled pass: ${lastScheduled}`);
  for (const w of warnings) io.stdout(`warning: ${w}`);
  return 0;
}
