import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';

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

export class Tmux {
  /** `socket`: the server the run was started on; null for the caller's default (very old runs). */
  constructor(
    readonly bin: string,
    readonly socket: string | null = null,
  ) {}

  private run(args: string[]) {
    const server = this.socket ? ['-S', this.socket] : [];
    return execa(this.bin, [...server, ...args], {
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

  /** Starts `argv` directly (several arguments: tmux execs them without a shell). */
  async newSession(name: string, cwd: string, argv: string[]): Promise<void> {
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
    if (r.exitCode !== 0)
      throw new Error(
        `tmux could not start session ${name}: ${String(r.stderr).trim() || `exit ${r.exitCode}`}`,
      );
  }

  async killSession(name: string): Promise<void> {
    await this.run(['kill-session', '-t', `=${name}`]);
  }
}
