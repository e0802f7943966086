import { hostname } from 'node:os';

import { tmuxSessionName } from '../../core/run/naming.js';
import type { SessionRecord } from '../../core/run/types.js';
import type { StopGrace } from '../processes.js';
import { Tmux } from '../tmux.js';
import { interruptLocal } from './local.js';
import type { Backend, SessionRef, SessionView } from './types.js';

// tmux: one session per run on overnight's own server; a person can attach to watch.

const GONE: SessionView = { alive: false, where: null };

export class TmuxBackend implements Backend {
  readonly name = 'tmux' as const;
  readonly remote = false;
  readonly listKey: string;
  private readonly tmux: Tmux;

  /** `socket`: the server the run was started on; null for the caller's default (very old runs). */
  constructor(bin: string, socket: string | null) {
    this.tmux = new Tmux(bin, socket);
    this.listKey = `tmux:${socket ?? ''}`;
  }

  async start(ref: SessionRef, cwd: string, argv: string[]): Promise<void> {
    const name = tmuxSessionName(ref.id);
    await this.tmux.killSession(name); // a finished wrapper's session may linger for a moment
    await this.tmux.newSession(name, cwd, argv);
    await this.tmux.setViewHooks(name);
  }

  sessionName(id: string): string {
    return tmuxSessionName(id);
  }

  async observe(ref: SessionRef): Promise<SessionView> {
    return (await this.list()).get(tmuxSessionName(ref.id)) ?? GONE;
  }

  async list(): Promise<Map<string, SessionView>> {
    const views = new Map<string, SessionView>();
    const where = hostname();
    for (const [name, pane] of await this.tmux.panes())
      views.set(name, { alive: pane.alive, where: pane.alive ? where : null });
    return views;
  }

  interrupt(ref: SessionRef, session: SessionRecord, grace: StopGrace): Promise<'gone' | NodeJS.Signals> {
    return interruptLocal(ref, session, grace);
  }

  async stop(ref: SessionRef): Promise<void> {
    await this.tmux.killSession(tmuxSessionName(ref.id));
  }
}
