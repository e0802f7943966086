// The benchmark's world: a temp HOME, runs root and tmux server, filled with runs made by the
// product itself (`overnight launch` / `overnight stop`) so that every file is in its real format.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { AGENT_SCRIPT } from './agent.mjs';

export const CLI = fileURLToPath(new URL('../bin/overnight.js', import.meta.url));

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A short path (tmux's socket lives under TMUX_TMPDIR and socket paths are limited to ~104 bytes),
 * with HOME, OVERNIGHT_HOME and TMUX_TMPDIR inside it and TMUX unset.
 */
export function createSandbox() {
  const base = existsSync('/tmp') ? '/tmp' : tmpdir();
  const dir = mkdtempSync(join(base, 'onb-'));
  const home = join(dir, 'home');
  const runs = join(dir, 'runs');
  const tmuxDir = join(dir, 'tmux');
  for (const d of [home, runs, tmuxDir]) mkdirSync(d, { mode: 0o700 });
  const fake = join(dir, 'fake-claude');
  writeFileSync(fake, AGENT_SCRIPT, { mode: 0o755 });
  const env = {
    ...process.env,
    HOME: home,
    OVERNIGHT_HOME: runs,
    TMUX_TMPDIR: tmuxDir,
    OVERNIGHT_CLAUDE: fake,
  };
  for (const name of ['TMUX', 'TMUX_PANE', 'XDG_CONFIG_HOME', 'OVERNIGHT_DEBUG']) delete env[name];
  return { dir, home, runs, tmuxDir, fake, env };
}

/** Runs the CLI to completion; its stdout, or an error carrying its stderr. */
export function overnight(sb, args) {
  try {
    return execFileSync(process.execPath, [CLI, ...args], {
      env: sb.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    throw new Error(
      `overnight ${args.join(' ')} failed (exit ${err.status}): ${String(err.stderr ?? err.message).trim()}`,
    );
  }
}

/**
 * Like `overnight`, with stdout to a file rather than a pipe: the CLI exits without waiting for
 * a pipe to drain, so a large output (status --json over 1,000 runs) is cut short in a pipe.
 */
export function overnightViaFile(sb, args) {
  const file = join(sb.dir, 'stdout.txt');
  const fd = openSync(file, 'w');
  try {
    const r = spawnSync(process.execPath, [CLI, ...args], { env: sb.env, stdio: ['ignore', fd, 'pipe'] });
    if (r.status !== 0)
      throw new Error(`overnight ${args.join(' ')} failed (exit ${r.status}): ${String(r.stderr).trim()}`);
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

/** tmux on overnight's own server (`-L overnight`) in the sandbox's TMUX_TMPDIR. */
export function tmux(sb, args) {
  return execFileSync('tmux', ['-L', 'overnight', ...args], {
    env: sb.env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The agent's pid as the wrapper recorded it in the run's first session, or null before that. */
export function agentPid(sb, id) {
  try {
    const [pid] = readFileSync(join(sb.runs, '.overnight', id, 'agent-1.pid'), 'utf8')
      .trim()
      .split(/\s+/);
    return Number(pid);
  } catch {
    return null;
  }
}

/** Alive and not a zombie (where /proc tells): an orphan may stay unreaped where PID 1 is no init. */
export function isRunning(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return !existsSync('/proc/self'); // gone since the signal check, or no /proc here (macOS)
  }
}

/** Still the fake agent we started (the script, or `sleep 3600` when idle), not a recycled pid. */
function isOurAgent(pid, fake) {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return isRunning(pid) && (cmd.startsWith('sleep\x003600') || cmd.includes(fake));
  } catch {
    return false;
  }
}

async function waitFor(what, ms, check) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Launches one run through the CLI and waits until its agent is running; `env` adds to the
 * launch's environment (captured for the agent: streamEnv(kb) makes it write its log).
 */
export async function launchLive(sb, name, env = {}) {
  const run = JSON.parse(
    overnight({ ...sb, env: { ...sb.env, ...env } }, [
      'launch',
      `bench: agent ${name}`,
      '--duration',
      '2h',
      '--name',
      name,
      '--json',
    ]),
  );
  run.agentPid = await waitFor(`the agent of ${run.id}`, 10_000, () => agentPid(sb, run.id));
  return run;
}

/**
 * Pids of this sandbox's reconcile passes still running (the wrapper starts one in the background
 * whenever an agent exits). Linux only: found through /proc/<pid>/environ.
 */
export function sandboxReconciles(sb) {
  if (!existsSync('/proc/self/environ')) return [];
  const marker = `\0OVERNIGHT_HOME=${sb.runs}\0`;
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      // `<cli> reconcile`: not a wake timer's shell, which names both while it sleeps.
      if (!cmdline.includes(`${CLI}\0reconcile`)) continue;
      if (`\0${readFileSync(`/proc/${name}/environ`, 'utf8')}`.includes(marker)) found.push(Number(name));
    } catch {
      // gone already, or not ours to read
    }
  }
  return found;
}

/** Waits until no background pass of this sandbox runs and the reconcile lock is free. */
export async function waitQuiet(sb, ms = 20_000) {
  await sleep(200); // the wrapper starts its pass just after writing the exit record
  await waitFor(
    'background reconcile passes to end',
    ms,
    () => sandboxReconciles(sb).length === 0 && !existsSync(join(sb.runs, '.reconcile.lock')),
  );
}

/** `YYYY-MM-DD-HHMM-finished-NNNN`, unique per index, from its start time. */
export function finishedId(i) {
  const t = finishedStart(i);
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${t.getUTCFullYear()}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())}-${p(t.getUTCHours())}${p(t.getUTCMinutes())}-finished-${p(i, 4)}`;
}

/**
 * When finished run `i` started: 50 minutes apart from mid-2024, so that 10,000 of them (a team's
 * year) all finished long before the dashboard's window.
 */
function finishedStart(i) {
  return new Date(Date.UTC(2024, 5, 1) + i * 50 * 60 * 1000);
}

/**
 * One run launched and stopped by the product (DONE + final.json in its records), then copied `count`
 * times under new ids; the id inside run.yaml and final.json (and the paths derived from it) is
 * rewritten to match. The template itself is removed, so exactly `count` finished runs remain.
 */
export async function makeFinishedRuns(sb, count) {
  const template = await launchLive(sb, 'finished-template');
  overnight(sb, ['stop', template.id]);
  await waitQuiet(sb);
  const src = join(sb.runs, template.id);
  const srcRec = join(sb.runs, '.overnight', template.id);
  for (const f of ['DONE', 'final.json']) {
    if (!existsSync(join(srcRec, f))) throw new Error(`the stopped template run has no ${f}`);
  }
  const ids = [];
  for (let i = 0; i < count; i++) {
    const id = finishedId(i);
    const dst = join(sb.runs, id);
    const dstRec = join(sb.runs, '.overnight', id);
    cpSync(src, dst, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false });
    cpSync(srcRec, dstRec, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false });
    // cpSync keeps files' times, not directories': findings/ must look untouched, as in a real run.
    const findings = statSync(join(src, 'findings'));
    utimesSync(join(dst, 'findings'), findings.atime, findings.mtime);
    for (const f of ['run.yaml', 'final.json']) {
      const path = join(dstRec, f);
      writeFileSync(path, readFileSync(path, 'utf8').split(template.id).join(id));
    }
    // Finished 8 hours after it started, as an old run would be.
    const at = new Date(finishedStart(i).getTime() + 8 * 3600 * 1000);
    utimesSync(join(dstRec, 'final.json'), at, at);
    ids.push(id);
  }
  rmSync(src, { recursive: true, force: true });
  rmSync(srcRec, { recursive: true, force: true });
  // The runs root's indexes are rebuilt from the runs by the next pass, as after an upgrade.
  rmSync(join(sb.runs, '.live'), { recursive: true, force: true });
  rmSync(join(sb.runs, '.finished.jsonl'), { force: true });
  return { ids, templateAgentPid: template.agentPid };
}

/**
 * Stops every run through the CLI, waits for the passes that triggers, kills the sandbox's tmux
 * server and any agent we started that is somehow still there (by pid), then removes the sandbox.
 */
export async function cleanup(sb, agentPids, log) {
  const step = async (what, fn) => {
    try {
      await fn();
    } catch (err) {
      log(`cleanup: ${what}: ${err.message}`);
    }
  };
  await step('overnight stop --all', () => overnight(sb, ['stop', '--all']));
  await step('waiting for background passes', () => waitQuiet(sb));
  await step('tmux kill-server', () => {
    try {
      tmux(sb, ['kill-server']);
    } catch (err) {
      if (!/no server running|error connecting/i.test(String(err.stderr))) throw err;
    }
  });
  for (const pid of agentPids) {
    if (pid && isOurAgent(pid, sb.fake)) await step(`kill agent ${pid}`, () => process.kill(pid, 'SIGKILL'));
  }
  await step('removing the sandbox', () => rmSync(sb.dir, { recursive: true, force: true }));
}

/** The current session of a run and its agent's pid as the wrapper recorded them; null before that. */
export function sessionAgent(runs, id) {
  try {
    const { n } = JSON.parse(readFileSync(join(runs, '.overnight', id, 'session.json'), 'utf8'));
    const pid = Number(
      readFileSync(join(runs, '.overnight', id, `agent-${n}.pid`), 'utf8')
        .trim()
        .split(' ')[0],
    );
    return { n, pid };
  } catch {
    return null;
  }
}
