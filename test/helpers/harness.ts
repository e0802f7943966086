// Integration harness: an isolated world per sandbox (HOME, OVERNIGHT_HOME, its own tmux server,
// config dir) and the fake agent, plus polling helpers. Nothing here sleeps for a fixed time
// except between polls of a condition that has a deadline.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

import { alive, killQuietly, readProc, waitFor } from './processes.js';

export { alive, allCmdlines, waitFor } from './processes.js';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(REPO, 'bin', 'overnight.js');
export const FAKE_CLAUDE = join(REPO, 'test', 'fixtures', 'fake-claude.mjs');

export type Env = Record<string, string>;
export interface Result {
  exitCode: number;
  stdout: string;
  stderr: string;
}
export interface Call {
  argv: string[];
  stdin: string;
  cwd: string;
  pid: number;
  invocation: number;
  at: number;
  /** The agent's whole environment. */
  env: Record<string, string>;
  /** The text of --append-system-prompt-file, when given. */
  appended?: string;
  /** OVERNIGHT_RUN_DIR, when set. */
  runDir?: string;
}
/** A line of a run's events.jsonl, typed loosely: a test names the fields it reads. */
export type EventLine = Record<string, unknown>;
/** A row of `status --json`, typed loosely: a test names the fields it reads. */
export type StatusJsonRow = Record<string, unknown>;

export interface Launched {
  id: string;
  workspace: string;
  session: string;
  endsAt: string;
}

const SHELL_ONLY = new Set(['NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'LINES', 'TZ']);

function baseEnv(): Env {
  const env: Env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k === 'TMUX' || k === 'TMUX_PANE' || k === 'CLAUDE_CONFIG_DIR') continue;
    if (k.startsWith('OVERNIGHT_') || k.startsWith('FAKE_CLAUDE_')) continue;
    // How the tests were started (npm test, npx vitest) is not how the person starts overnight.
    if (k.startsWith('npm_')) continue;
    // The developer's terminal settings are not the test's: colour and width tests set their own.
    if (SHELL_ONLY.has(k)) continue;
    env[k] = v;
  }
  return env;
}

export type Sandbox = ReturnType<typeof makeSandbox>;

/** The backend a sandbox's runs use: tmux (the default where it is installed), or detached. */
export type SandboxBackend = 'tmux' | 'detached';

/** /proc/<pid>/stat field 22, as overnight records it; null for a process gone or a zombie. */
function startTimeOf(pid: number): string | null {
  const stat = readProc(String(pid), 'stat');
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' || fields[0] === 'X' ? null : (fields[19] ?? null);
}

export function makeSandbox(opts: { backend?: SandboxBackend } = {}) {
  const backend = opts.backend ?? 'tmux';
  // Short: tmux's socket path ($TMUX_TMPDIR/tmux-UID/default) must stay under ~100 characters.
  const dir = mkdtempSync(join(tmpdir(), 'ovt-'));
  const [home, runs, tmuxDir, xdg, logDir] = ['h', 'runs', 't', 'x', 'log'].map((d) => join(dir, d)) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const behaviourFile = join(dir, 'behaviour.json');
  for (const d of [home, tmuxDir, xdg, logDir]) mkdirSync(d, { recursive: true });
  writeFileSync(behaviourFile, '{}');
  const env: Env = {
    ...baseEnv(),
    HOME: home,
    OVERNIGHT_HOME: runs,
    TMUX_TMPDIR: tmuxDir,
    XDG_CONFIG_HOME: xdg,
    OVERNIGHT_CLAUDE: FAKE_CLAUDE,
    FAKE_CLAUDE_BEHAVIOUR: behaviourFile,
    FAKE_CLAUDE_LOG: logDir,
    // A night compressed: no backoff between restarts unless a test asks for it.
    OVERNIGHT_BACKOFF: '0s',
    ...(opts.backend ? { OVERNIGHT_BACKEND: opts.backend } : {}),
    // Tests play the pass at the end time themselves, unless they test the end timer.
    OVERNIGHT_END_TIMER: '0',
  };

  const withEnv = (extra: Record<string, string | undefined> = {}): Env => {
    const merged: Env = { ...env };
    for (const [k, v] of Object.entries(extra)) {
      if (v === undefined) delete merged[k];
      else merged[k] = v;
    }
    return merged;
  };

  const run = async (
    args: string[],
    opts: { env?: Record<string, string | undefined>; command?: string; input?: string | Buffer } = {},
  ): Promise<Result> => {
    const r = await execa(opts.command ?? process.execPath, [BIN, ...args], {
      env: withEnv(opts.env),
      extendEnv: false,
      reject: false,
      cwd: dir,
      ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
      timeout: 45_000,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };

  /** tmux on overnight's own server (`-L overnight`, under this sandbox's TMUX_TMPDIR). */
  const tmux = async (args: string[]): Promise<Result> => personTmux(['-L', 'overnight', ...args]);
  /** tmux on the person's default server in this sandbox, which overnight must never touch. */
  const personTmux = async (args: string[], extra: Record<string, string> = {}): Promise<Result> => {
    const r = await execa('tmux', args, {
      env: { ...env, ...extra },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };

  const ws = (id: string, ...rest: string[]) => join(runs, id, ...rest);
  /** A file of the run's records (outside its directory, where the agent cannot write). */
  const state = (id: string, file: string) => join(runs, '.overnight', id, file);
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

  /** Processes of this sandbox: every one of them carries its OVERNIGHT_HOME in its environment. */
  const processes = (): { pid: number; cmdline: string }[] => {
    const marker = `OVERNIGHT_HOME=${runs}`;
    return readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
      .filter((p) => readProc(p, 'environ').split('\0').includes(marker))
      .map((p) => ({ pid: Number(p), cmdline: readProc(p, 'cmdline').split('\0').join(' ') }))
      .filter((p) => alive(p.pid));
  };

  /** A detached run's wrapper as recorded (pid, start time); null before it is. */
  const detachedWrapper = (id: string): { pid: number; startTime: string } | null => {
    const m = /^(\d+) (.+)$/.exec((read(state(id, 'wrapper.pid')) ?? '').trim());
    return m ? { pid: Number(m[1]), startTime: m[2] as string } : null;
  };

  const sb = {
    dir,
    backend,
    home,
    runs,
    env,
    behaviourFile,
    logDir,
    ws,
    state,
    read,
    run,
    tmux,
    personTmux,
    processes,

    /** The fake's behaviour for the invocations from now on (an array is indexed from here). */
    setBehaviour(behaviour: unknown): void {
      writeFileSync(behaviourFile, JSON.stringify(behaviour));
      rmSync(`${behaviourFile}.count`, { force: true });
    },

    /** The run's events.jsonl, parsed: one object a line, [] before there is one. */
    events<T = EventLine>(id: string): T[] {
      return (read(state(id, 'events.jsonl')) ?? '')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as T);
    },

    /** `status --json [args]`, parsed; throws with its stderr when it fails. */
    async status<T = StatusJsonRow>(
      args: string[] = [],
      opts: { env?: Record<string, string | undefined> } = {},
    ): Promise<T[]> {
      const r = await run(['status', '--json', ...args], opts);
      if (r.exitCode !== 0) throw new Error(`status --json failed (${r.exitCode}): ${r.stderr}`);
      return JSON.parse(r.stdout) as T[];
    },

    calls(): Call[] {
      const text = read(join(logDir, 'calls.jsonl')) ?? '';
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Call);
    },

    async launch(
      task: string,
      flags: string[] = [],
      extraEnv: Record<string, string | undefined> = {},
    ): Promise<Launched> {
      const r = await run(['launch', '--json', ...flags, task], { env: extraEnv });
      if (r.exitCode !== 0) throw new Error(`launch failed (${r.exitCode}): ${r.stderr}`);
      return JSON.parse(r.stdout) as Launched;
    },

    /** The agent pid of session n, once the wrapper has recorded it and the agent has started up. */
    async agentPid(id: string, n = 1, timeout = 15_000): Promise<number> {
      const text = await waitFor(() => read(state(id, `agent-${n}.pid`)), {
        timeout,
        what: `agent-${n}.pid of ${id}`,
      });
      const pid = Number(text.split(' ')[0]);
      await waitFor(() => sb.calls().some((c) => c.pid === pid), {
        what: `agent ${pid} of ${id} in calls.jsonl`,
      });
      return pid;
    },

    /** The run's session is there: its tmux session, or its detached wrapper alive. */
    async hasSession(id: string): Promise<boolean> {
      if (backend === 'detached') {
        const w = detachedWrapper(id);
        return w !== null && startTimeOf(w.pid) === w.startTime;
      }
      return (await tmux(['has-session', '-t', `=overnight-${id}`])).exitCode === 0;
    },

    /** The wrapper: the process tmux runs in the run's pane, or the detached one recorded. */
    async wrapperPid(id: string): Promise<number> {
      if (backend === 'detached')
        return (await waitFor(() => detachedWrapper(id), { what: `wrapper.pid of ${id}` })).pid;
      const r = await tmux(['list-panes', '-t', `=overnight-${id}`, '-F', '#{pane_pid}']);
      const pid = Number(r.stdout.trim().split('\n')[0]);
      if (r.exitCode !== 0 || !pid) throw new Error(`no pane for ${id}: ${r.stderr}`);
      return pid;
    },

    /**
     * Kills session 1's agent while a fresh (fake) lock is held, so the pass the wrapper starts
     * bows out; returns once the exit is recorded, the wrapper is gone and no pass runs. The lock
     * and the wrapper's pass request are left in place (see `releaseLock`).
     */
    async crashUnderLock(id: string): Promise<number> {
      const pid = await sb.agentPid(id);
      mkdirSync(join(runs, '.reconcile.lock'));
      process.kill(pid, 'SIGKILL');
      await waitFor(() => read(state(id, 'agent-1.exit')), { what: 'exit record' });
      await waitFor(async () => !(await sb.hasSession(id)), { what: 'wrapper gone' });
      await sb.quiesce();
      return pid;
    },

    releaseLock(): void {
      rmSync(join(runs, '.pass-requested'), { force: true });
      rmSync(join(runs, '.reconcile.lock'), { recursive: true, force: true });
    },

    /** Waits until no reconcile pass of this sandbox is running (the wrapper starts them too). */
    async quiesce(timeout = 15_000): Promise<void> {
      await waitFor(() => !processes().some((p) => /overnight\.js reconcile\b/.test(p.cmdline)), {
        timeout,
        what: 'no reconcile pass running',
      });
    },

    async cleanup(): Promise<void> {
      // A pass still running must not start anything new: a global PAUSE stops every run.
      if (existsSync(runs)) writeFileSync(join(runs, 'PAUSE'), '');
      await tmux(['kill-server']);
      await personTmux(['kill-server']);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const left = processes();
        for (const c of sb.calls())
          if (alive(c.pid) && readProc(String(c.pid), 'cmdline').includes('fake-claude')) killQuietly(c.pid);
        if (left.length === 0 || Date.now() > deadline) break;
        for (const p of left) killQuietly(p.pid);
        await sleep(50);
      }
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
  return sb;
}

/** Files of a run's workspace, relative path to content (for "nothing changed"). */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[path.slice(root.length + 1)] = readFileSync(path, 'utf8');
  }
  return out;
}

/** overnight's records of the run whose directory is `workspace`: `<root>/.overnight/<run id>`. */
export function records(workspace: string): string {
  return join(dirname(workspace), '.overnight', basename(workspace));
}
