// The chaos harness's world: its own HOME, tmux server and runs root (a tmpfs when running as
// root, so that the disk can be filled), the fake agent, and the CLI run as a person would.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../bin/overnight.js', import.meta.url));
export const FAKE = fileURLToPath(new URL('../test/fixtures/fake-claude.mjs', import.meta.url));

/** The synthesis budget of a chaos night, in seconds: the late report's goal is this plus 60 s. */
export const SYNTHESIS_BUDGET_S = 60;

/** Thresholds of a night compressed to seconds. */
const COMPRESSED = {
  OVERNIGHT_STALE_AFTER: '3s',
  OVERNIGHT_HANG_GRACE: '2s',
  OVERNIGHT_BACKOFF: '1s',
  OVERNIGHT_BACKOFF_MAX: '2s',
  OVERNIGHT_HEALTHY_AFTER: '5s',
  OVERNIGHT_MIN_UPTIME: '1s',
  OVERNIGHT_LIMIT_MARGIN: '1s',
  OVERNIGHT_SYNTHESIS_BUDGET: `${SYNTHESIS_BUDGET_S}s`,
  OVERNIGHT_STOP_GRACE: '1s',
  OVERNIGHT_MAX_RESTARTS: '40',
};

export function createWorld({ tmpfsMb, backend = 'tmux' }) {
  const dir = mkdtempSync('/tmp/ovc-');
  const home = join(dir, 'h');
  const runs = join(dir, 'runs');
  const tmuxDir = join(dir, 't');
  const logs = join(dir, 'logs');
  for (const d of [home, runs, tmuxDir, logs, join(dir, 'x')]) mkdirSync(d, { recursive: true, mode: 0o700 });
  let tmpfs = false;
  if (tmpfsMb > 0 && process.getuid?.() === 0) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${tmpfsMb}m,mode=0700`, 'tmpfs', runs]);
    tmpfs = true;
  }
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'TMUX' || k === 'TMUX_PANE' || k.startsWith('OVERNIGHT_') || k.startsWith('FAKE_CLAUDE_'))
      continue;
    env[k] = v;
  }
  Object.assign(env, {
    HOME: home,
    OVERNIGHT_HOME: runs,
    TMUX_TMPDIR: tmuxDir,
    XDG_CONFIG_HOME: join(dir, 'x'),
    OVERNIGHT_CLAUDE: FAKE,
    FAKE_CLAUDE_EXCLUSIVE: '1',
    OVERNIGHT_BACKEND: backend,
    ...COMPRESSED,
  });
  return { dir, home, runs, tmuxDir, logs, env, tmpfs, backend };
}

/** Runs the CLI to its end: exit code and output; never throws. */
export function overnight(world, args, extraEnv = {}, timeoutMs = 120_000) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...world.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** tmux on overnight's own server (`-L overnight`) in the world's TMUX_TMPDIR. */
export function tmux(world, args) {
  try {
    return execFileSync('tmux', ['-L', 'overnight', ...args], {
      env: world.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
}

/** `/proc/<pid>/stat`'s state and start time, or null for no process (or a zombie). */
export function procStart(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' ? null : fields[19];
  } catch {
    return null;
  }
}

/** When the machine booted, to 10 ms (btime in /proc/stat has whole seconds only). */
const BOOT_MS = (() => {
  try {
    return Date.now() - Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000;
  } catch {
    return null;
  }
})();

/** When a process started (ms since the epoch) from procStart's clock ticks (100 a second). */
export function startMs(ticks) {
  return BOOT_MS === null || ticks === null ? null : BOOT_MS + Number(ticks) * 10;
}

export function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/**
 * Whether an environment is of this world: its runs root (the CLI, passes, timers, agents), or its
 * HOME (wrappers and the tmux server, which start from a sanitized environment without the root).
 * @param {string[]} env
 */
export const ofWorld = (world, env) =>
  env.includes(`OVERNIGHT_HOME=${world.runs}`) || env.includes(`HOME=${world.home}`);

/** Every process of the harness's runs, found by its environment (ofWorld). */
export function worldProcesses(world) {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (ofWorld(world, readFileSync(`/proc/${name}/environ`, 'utf8').split('\0'))) {
        if (procStart(Number(name))) found.push({ pid: Number(name), cmd: cmdline(Number(name)) });
      }
    } catch {
      // gone
    }
  }
  return found;
}

export function killQuietly(pid, signal = 'SIGKILL') {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Ends everything the harness started, then removes its world. */
export async function destroyWorld(world, { keep = false } = {}) {
  await overnight(world, ['pause', '--all'], {}, 20_000);
  tmux(world, ['kill-server']);
  for (let i = 0; i < 50; i++) {
    const left = worldProcesses(world);
    if (left.length === 0) break;
    for (const p of left) killQuietly(p.pid);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (world.tmpfs && !keep) {
    try {
      execFileSync('umount', ['-l', world.runs]);
    } catch {
      // already gone
    }
  }
  if (!keep && existsSync(world.dir)) rmSync(world.dir, { recursive: true, force: true });
}
