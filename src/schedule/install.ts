import { dirname } from 'node:path';

import { readText } from '../adapters/files.js';
import { resolveClaude } from '../adapters/install.js';
import * as sched from '../adapters/scheduler.js';
import { readScheduleMarker, removeScheduleMarker, writeScheduleMarker } from '../adapters/supervision.js';
import { resolveExecutable } from '../adapters/which.js';
import type { Settings } from '../core/config/settings.js';
import { OperationalError } from '../core/errors.js';
import {
  buildPath,
  cronBlock,
  cronTimeFields,
  scheduleNames,
  SYSTEM_PATH_DIRS,
  type Backend,
  type InstalledEntry,
  type ScheduleNames,
  type ScheduleValues,
} from '../core/schedule/cron.js';
import { launchdPlist, systemdUnits } from '../core/schedule/units.js';
import { defaultBackend, extraEnv, installProblem, isDefaultRoot } from './values.js';

// `overnight schedule install` and `uninstall`, all or nothing: an install that fails puts back
// what it changed (unit files, the plist, the crontab), so `schedule status`, `status` and
// `doctor` never disagree about a half-installed schedule.

type Env = NodeJS.ProcessEnv;

export interface Installed {
  backend: Backend;
  everySeconds: number;
  runsRoot: string;
  where: string;
  log: string;
  path: string;
  installedAt: Date;
  /** Entries of other backends for this root, removed once the new one was in place. */
  replaced: InstalledEntry[];
  /** Found missing at install: the entry's PATH cannot lead to them. */
  missing: { tmux: boolean; claude: boolean };
}

/** Puts back what the entry's install changed, as far as the scheduler lets it. */
type Undo = () => Promise<void>;

/** Writes the entry for `backend`; returns where it is and how to undo it. */
async function writeEntry(
  backend: Backend,
  names: ScheduleNames,
  values: ScheduleValues,
  env: Env,
): Promise<{ where: string; undo: Undo }> {
  if (backend === 'cron') {
    const before = await sched.readCrontab(env);
    const changed = await sched.editUserCrontab(values.runsRoot, cronBlock(values), env);
    const undo = async () => {
      if (changed) await sched.writeCrontab(before, env);
    };
    return { where: 'crontab', undo };
  }
  if (backend === 'launchd') {
    const file = sched.plistFile(names, env);
    const before = readText(file);
    const undo = async () => {
      if (before === null) await sched.uninstallLaunchd(names, env);
      else await sched.installLaunchd(names, before, env, 0);
    };
    try {
      return { where: await sched.installLaunchd(names, launchdPlist(values), env), undo };
    } catch (err) {
      await undo().catch(() => {});
      throw err;
    }
  }
  const files = sched.unitFiles(names, env);
  const before = { service: readText(files.service), timer: readText(files.timer) };
  const undo = async () => {
    if (before.service === null && before.timer === null) await sched.uninstallSystemd(names, env);
    else await sched.restoreSystemd(names, before, env);
  };
  try {
    return { where: (await sched.installSystemd(names, systemdUnits(values), env)).timer, undo };
  } catch (err) {
    await undo().catch(() => {});
    throw err;
  }
}

export async function installSchedule(
  settings: Settings,
  backendChosen: Backend | undefined,
  every: { seconds: number; text: string },
  env: Env,
  now: Date,
  cmd = 'overnight',
): Promise<Installed> {
  const root = settings.runsDir;
  const defaultRoot = isDefaultRoot(root);
  const backend = backendChosen ?? (await defaultBackend(env));
  if (backend === 'cron') cronTimeFields(every.seconds, every.text);
  const problem = await installProblem(backend, backendChosen !== undefined, env, cmd);
  if (problem) throw new OperationalError(problem);
  const tmux = resolveExecutable('tmux', env.PATH);
  const claude = resolveClaude(settings.claude, env.PATH);
  const found = [process.execPath, tmux, claude].filter((p): p is string => p !== null);
  const values: ScheduleValues = {
    node: process.execPath,
    cli: sched.cliPath(),
    runsRoot: root,
    defaultRoot,
    path: buildPath([...found.map((p) => dirname(p)), ...SYSTEM_PATH_DIRS]),
    everySeconds: every.seconds,
    extraEnv: extraEnv(env),
  };
  const names = scheduleNames(root, defaultRoot);

  const { where, undo } = await writeEntry(backend, names, values, env).catch((err: Error) => {
    throw new OperationalError(`${err.message}; nothing was installed (what was written is removed again)`);
  });
  const installedAt = now;
  try {
    writeScheduleMarker(root, {
      backend,
      everySeconds: every.seconds,
      installedAt,
      path: values.path,
      node: values.node,
      env: defaultRoot ? {} : { OVERNIGHT_HOME: root },
    });
  } catch (err) {
    await undo().catch(() => {});
    throw err;
  }
  // One scheduler per runs root: an entry in another backend goes, once the new one is in place.
  const elsewhere = (await sched.findEntries(root, names, env)).filter((e) => e.backend !== backend);
  for (const e of elsewhere) await removeEntry(e.backend, root, env);
  return {
    backend,
    everySeconds: every.seconds,
    runsRoot: root,
    where,
    log: names.log,
    path: values.path,
    installedAt,
    replaced: elsewhere,
    missing: { tmux: !tmux, claude: !claude },
  };
}

export async function removeEntry(backend: Backend, root: string, env: Env): Promise<boolean> {
  const names = scheduleNames(root, isDefaultRoot(root));
  if (backend === 'cron') return sched.editUserCrontab(root, null, env);
  if (backend === 'launchd') return sched.uninstallLaunchd(names, env);
  return sched.uninstallSystemd(names, env);
}

/** Removes exactly what install wrote (one backend's, with `only`), and the marker with it. */
export async function uninstallSchedule(
  root: string,
  only: Backend | undefined,
  env: Env,
): Promise<InstalledEntry[]> {
  const names = scheduleNames(root, isDefaultRoot(root));
  const entries = await sched.findEntries(root, names, env, only);
  const removed: InstalledEntry[] = [];
  for (const e of entries) if (await removeEntry(e.backend, root, env)) removed.push(e);
  const marker = readScheduleMarker(root);
  if (!only || marker?.backend === only) removeScheduleMarker(root);
  return removed;
}
