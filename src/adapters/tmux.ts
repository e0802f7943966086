import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import { describeOwnerProblem } from '../core/run/owner.js';
import { ownerProblemAt } from './owner.js';

// Thin adapter over the tmux binary. `=name` targets match a session name exactly.

export interface PaneInfo {
  /** The pane's process (the wrapper) is still running. */
  alive: boolean;
}

/**
 * What tmux gets of the caller's environment: enough to run the wrapper, nothing more. A server
 * that this call starts keeps its environment as its global one for every later session, and
 * credentials have no business there (the agent gets exactly what launch captured; see agent.sh).
 * TMUX is never passed: it would point the client at the caller's own server.
 */
const KEPT = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  // Only runs launched before a socket was recorded use it (the caller's default server).
  'TMUX_TMPDIR',
];

export function tmuxEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT) if (env[name] !== undefined) kept[name] = env[name] as string;
  return kept;
}

/** Tries of `new-session` before a pass gives up on it (about 3 s in all). */
const NEW_SESSION_TRIES = 5;

export class Tmux {
  /** `socket`: the server the run was started on; null for the caller's default (very old runs). */
  constructor(
    readonly bin: string,
    readonly socket: string | null = null,
  ) {}

  private async run(args: string[]) {
    const server = this.socket ? ['-S', this.socket] : [];
    if (this.socket) socketProblem(this.socket);
    // Loaded when tmux is asked: a pass or status whose runs need no tmux never compiles execa.
    const { execa } = await import('execa');
    return execa(this.bin, [...server, ...args], {
      // Never the caller's directory: a pass started from a run's workspace outlives it when
      // the run is removed, and a child cannot be started from a directory that is gone.
      cwd: '/',
      env: tmuxEnv(process.env),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
  }

  /** Every session's first pane, read once per pass. No server means no sessions. */
  async panes(): Promise<Map<string, PaneInfo>> {
    const r = await this.run(['list-panes', '-a', '-F', '#{session_name}\t#{pane_dead}']);
    const panes = new Map<string, PaneInfo>();
    if (r.exitCode !== 0) return panes;
    for (const line of String(r.stdout).split('\n')) {
      const [name, dead] = line.split('\t');
      if (!name || panes.has(name)) continue;
      panes.set(name, { alive: dead === '0' });
    }
    return panes;
  }

  /**
   * Starts `argv` directly (several arguments: tmux execs them without a shell). A server that is
   * exiting (its last session just ended) refuses with "server exited unexpectedly" or "lost
   * server": tried again a few times, a fresh server starting on the next try.
   */
  async newSession(name: string, cwd: string, argv: string[]): Promise<void> {
    let failure = '';
    for (let attempt = 0; attempt < NEW_SESSION_TRIES; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      failure = await this.tryNewSession(name, cwd, argv);
      if (!failure) return;
      // A session of that name left by a wrapper that just ended: gone before the next try.
      if (/duplicate session/i.test(failure)) await this.killSession(name);
    }
    throw new Error(`tmux could not start session ${name}: ${failure}`);
  }

  private async tryNewSession(name: string, cwd: string, argv: string[]): Promise<string> {
    // tmux makes its own default socket's directory, but not one given with -S.
    if (this.socket) mkdirSync(dirname(this.socket), { recursive: true, mode: 0o700 });
    const r = await this.run([
      'new-session',
      '-d',
      '-s',
      name,
      '-c',
      cwd,
      '-x',
      '200',
      '-y',
      '50',
      '--',
      ...argv,
    ]);
    if (r.exitCode === 0) return '';
    const how = r.exitCode !== undefined ? `exit ${r.exitCode}` : (r.signal ?? r.shortMessage ?? 'failed');
    return String(r.stderr).trim() || how;
  }

  /**
   * The hooks that show the agent's log in the pane while a person is attached (the wrapper's
   * view.sh): SIGWINCH to the pane's process group when a client attaches, SIGURG when the last
   * one has left. Both are ignored by default, so nothing else there is touched. A tmux that
   * refuses them leaves the pane as it was: its first lines say how to follow the log.
   */
  async setViewHooks(name: string): Promise<void> {
    const signal = (sig: string) => `run-shell 'kill -s ${sig} -- -#{pane_pid} 2> /dev/null || :'`;
    const target = `=${name}:`;
    await this.run([
      ...['set-hook', '-t', target, 'client-attached', signal('WINCH'), ';'],
      ...['set-hook', '-t', target, 'client-detached'],
      `if-shell -F '#{==:#{session_attached},0}' "${signal('URG')}"`,
    ]);
  }

  async killSession(name: string): Promise<void> {
    await this.run(['kill-session', '-t', `=${name}`]);
  }
}

/**
 * Refuses a socket another user could have made or swapped: its directory (not followed if a link)
 * and the socket itself must be the person's, and no one else may write in the directory. Whoever
 * made the directory first would otherwise own the server that runs the person's agents.
 */
function socketProblem(socket: string): void {
  const dir = dirname(socket);
  // The socket's own mode is tmux's (group bits and all); only its owner counts.
  const sock = ownerProblemAt(socket, false);
  const problem = ownerProblemAt(dir, false) ?? (sock?.kind === 'not-owned' ? sock : null);
  if (problem)
    throw new Error(
      describeOwnerProblem(
        `the tmux socket ${problem.path === dir ? 'directory ' : ''}${problem.path}`,
        problem,
      ),
    );
}
