import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { OperationalError } from '../core/errors.js';
import {
  editCrontab,
  findCronBlock,
  type Backend,
  type InstalledEntry,
  type ScheduleNames,
} from '../core/schedule/cron.js';
import type { SchedulersHere } from '../core/schedule/here.js';
import { parsePlistInterval, parseTimerInterval, type SystemdUnits } from '../core/schedule/units.js';
import { readText, writeFileAtomic } from './files.js';
import { resolveExecutable } from './which.js';

// Thin I/O for `overnight schedule`: the user's crontab, LaunchAgents and systemd user units.
// execa is imported lazily: `status` and `launch` read the marker file and must start fast.

type Env = NodeJS.ProcessEnv;

interface Ran {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function run(command: string, args: string[], env: Env, input?: string): Promise<Ran> {
  const { execa } = await import('execa');
  try {
    const r = await execa(command, args, {
      env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  } catch (err) {
    return { exitCode: -1, stdout: '', stderr: (err as Error).message };
  }
}

function failed(what: string, r: Ran): OperationalError {
  return new OperationalError(`${what} failed: ${r.stderr.trim() || `exit ${r.exitCode}`}`);
}

/** The bin/overnight.js of this package: dist/ and src/commands/ are one and two levels down. */
export function cliPath(): string {
  const candidates = ['../bin/overnight.js', '../../bin/overnight.js'].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  return candidates.find((p) => existsSync(p)) ?? (candidates[0] as string);
}

function home(env: Env): string {
  return env.HOME || homedir();
}

// ---- cron ----

/** Tests point OVERNIGHT_CRONTAB_CMD at a fake. */
function crontabCmd(env: Env): string {
  return env.OVERNIGHT_CRONTAB_CMD || 'crontab';
}

export function hasCrontab(env: Env): boolean {
  return resolveExecutable(crontabCmd(env), env.PATH) !== null;
}

/** The user's crontab exactly as stored; empty when there is none yet. */
export async function readCrontab(env: Env): Promise<string> {
  const r = await run(crontabCmd(env), ['-l'], env);
  if (r.exitCode === 0) return r.stdout;
  if (/no crontab/i.test(r.stderr)) return '';
  if (!hasCrontab(env))
    throw new OperationalError('the crontab command was not found; install cron (apt-get install cron)');
  throw failed('crontab -l', r);
}

export async function writeCrontab(text: string, env: Env): Promise<void> {
  const r = await run(crontabCmd(env), ['-'], env, text);
  if (r.exitCode !== 0) throw failed('crontab -', r);
}

/** Replaces (or with null removes) the block for `root`; true when the crontab changed. */
export async function editUserCrontab(root: string, block: string | null, env: Env): Promise<boolean> {
  const current = await readCrontab(env);
  const next = editCrontab(current, block, root);
  if (next === current) return false;
  // Nothing left of the person's own: the crontab goes (`crontab -r`) rather than stay empty.
  if (next.trim() === '') await removeCrontab(env);
  else await writeCrontab(next, env);
  return true;
}

async function removeCrontab(env: Env): Promise<void> {
  const r = await run(crontabCmd(env), ['-r'], env);
  if (r.exitCode !== 0 && !/no crontab/i.test(r.stderr)) throw failed('crontab -r', r);
}

// ---- launchd ----

export function plistFile(names: ScheduleNames, env: Env): string {
  return join(home(env), 'Library', 'LaunchAgents', `${names.label}.plist`);
}

const BOOTSTRAP_BUSY = new Set([5, 37]);

function guiDomain(): string {
  return `gui/${process.getuid?.() ?? 0}`;
}

export async function installLaunchd(
  names: ScheduleNames,
  plist: string,
  env: Env,
  retryForMs = 10_000,
): Promise<string> {
  const file = plistFile(names, env);
  mkdirSync(join(home(env), 'Library', 'LaunchAgents'), { recursive: true });
  writeFileAtomic(file, plist, 0o644);
  // Replacing a loaded job: bootstrap refuses a label that is already loaded.
  await run('launchctl', ['bootout', `${guiDomain()}/${names.label}`], env);
  // bootout returns before the old job is gone; until then bootstrap fails with 5 (I/O error)
  // or 37 (operation already in progress). Other failures are final at once.
  const deadline = Date.now() + retryForMs;
  let r = await run('launchctl', ['bootstrap', guiDomain(), file], env);
  for (
    let wait = 100;
    BOOTSTRAP_BUSY.has(r.exitCode) && Date.now() < deadline;
    wait = Math.min(wait * 2, 1_000)
  ) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(wait, Math.max(0, deadline - Date.now()))));
    r = await run('launchctl', ['bootstrap', guiDomain(), file], env);
  }
  if (r.exitCode !== 0) throw failed(`launchctl bootstrap ${guiDomain()} ${file}`, r);
  return file;
}

export async function uninstallLaunchd(names: ScheduleNames, env: Env): Promise<boolean> {
  const file = plistFile(names, env);
  const had = existsSync(file);
  await run('launchctl', ['bootout', `${guiDomain()}/${names.label}`], env);
  rmSync(file, { force: true });
  return had;
}

// ---- systemd ----

export function unitFiles(names: ScheduleNames, env: Env): { service: string; timer: string } {
  const dir = join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'systemd', 'user');
  return { service: join(dir, `${names.unit}.service`), timer: join(dir, `${names.unit}.timer`) };
}

/** A user manager is reachable (not the case in most containers and some SSH sessions). */
export async function systemdUserAvailable(env: Env): Promise<boolean> {
  return (await run('systemctl', ['--user', 'show-environment'], env)).exitCode === 0;
}

/** The schedulers this machine offers. */
export async function schedulersHere(env: Env): Promise<SchedulersHere> {
  const darwin = process.platform === 'darwin';
  return { darwin, crontab: hasCrontab(env), systemdUser: !darwin && (await systemdUserAvailable(env)) };
}

export async function installSystemd(
  names: ScheduleNames,
  units: SystemdUnits,
  env: Env,
): Promise<{ service: string; timer: string }> {
  const files = unitFiles(names, env);
  mkdirSync(join(files.service, '..'), { recursive: true });
  writeFileAtomic(files.service, units.service, 0o644);
  writeFileAtomic(files.timer, units.timer, 0o644);
  for (const args of [
    ['--user', 'daemon-reload'],
    ['--user', 'enable', '--now', `${names.unit}.timer`],
  ]) {
    const r = await run('systemctl', args, env);
    if (r.exitCode !== 0) throw failed(`systemctl ${args.join(' ')}`, r);
  }
  // A timer whose interval changed restarts from now, not from its old schedule.
  await run('systemctl', ['--user', 'restart', `${names.unit}.timer`], env);
  return files;
}

/** Puts the unit files back as they were (absent ones removed) and has the user manager reread them. */
export async function restoreSystemd(
  names: ScheduleNames,
  before: { service: string | null; timer: string | null },
  env: Env,
): Promise<void> {
  const files = unitFiles(names, env);
  for (const key of ['service', 'timer'] as const) {
    const text = before[key];
    if (text === null) rmSync(files[key], { force: true });
    else writeFileAtomic(files[key], text, 0o644);
  }
  await run('systemctl', ['--user', 'daemon-reload'], env);
  if (before.timer !== null) await run('systemctl', ['--user', 'restart', `${names.unit}.timer`], env);
}

export async function uninstallSystemd(names: ScheduleNames, env: Env): Promise<boolean> {
  const files = unitFiles(names, env);
  const had = existsSync(files.timer) || existsSync(files.service);
  if (had) await run('systemctl', ['--user', 'disable', '--now', `${names.unit}.timer`], env);
  rmSync(files.timer, { force: true });
  rmSync(files.service, { force: true });
  if (had) await run('systemctl', ['--user', 'daemon-reload'], env);
  return had;
}

// ---- what is installed ----

/** Every backend's entry for this runs root. The crontab is only read where a crontab exists. */
export async function findEntries(
  root: string,
  names: ScheduleNames,
  env: Env,
  only?: Backend,
): Promise<InstalledEntry[]> {
  const entries: InstalledEntry[] = [];
  if ((!only || only === 'cron') && hasCrontab(env)) {
    const block = findCronBlock(await readCrontab(env), root);
    if (block) entries.push({ backend: 'cron', everySeconds: block.everySeconds, where: 'crontab' });
  }
  const plist = plistFile(names, env);
  if ((!only || only === 'launchd') && existsSync(plist))
    entries.push({
      backend: 'launchd',
      everySeconds: parsePlistInterval(readText(plist) ?? ''),
      where: plist,
    });
  const units = unitFiles(names, env);
  if ((!only || only === 'systemd') && existsSync(units.timer))
    entries.push({
      backend: 'systemd',
      everySeconds: parseTimerInterval(readText(units.timer) ?? ''),
      where: units.timer,
    });
  return entries;
}
