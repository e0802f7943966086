import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

import { tmuxSessionName } from '../../core/run/naming.js';
import { recordsDir, runPaths } from '../../core/run/paths.js';
import { parsePidRecord } from '../../core/run/records.js';
import type { SessionRecord } from '../../core/run/types.js';
import { readText, writeFileAtomic } from '../files.js';
import { isAlive, signalGroup, startTimeOf, type StopGrace } from '../processes.js';
import { tmuxEnv } from '../tmux.js';
import { interruptLocal } from './local.js';
import type { Backend, SessionRef, SessionView } from './types.js';

// detached: no tmux. The wrapper runs in a session and process group of its own (setsid), with no
// terminal, its own lines in wrapper.log; the agent's output goes to output.log as in tmux
// (`logs -f` to watch). The wrapper's pid and start time are recorded, so a pass tells a live
// wrapper from a dead one (or a recycled pid) as it does the agent.

const GONE: SessionView = { alive: false, where: null };

export class DetachedBackend implements Backend {
  readonly name = 'detached' as const;
  readonly remote = false;
  readonly listKey = null;

  /** `root`: the runs root, where `list` finds the runs' records. */
  constructor(private readonly root: string) {}

  sessionName(id: string): string {
    return tmuxSessionName(id);
  }

  async start(ref: SessionRef, cwd: string, argv: string[]): Promise<void> {
    const [command, ...args] = argv as [string, ...string[]];
    const log = openSync(ref.paths.wrapperLog, 'a', 0o600);
    let child;
    try {
      child = spawn(command, args, {
        cwd,
        // setsid(): no terminal, and no signal meant for the pass (or its terminal) reaches it.
        detached: true,
        stdio: ['ignore', log, log],
        // What tmux would give it; OVERNIGHT_HOME names the runs root its passes look at.
        env: { ...tmuxEnv(process.env), OVERNIGHT_HOME: this.root },
      });
    } finally {
      closeSync(log);
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    const pid = child.pid as number;
    // Gone already (it records the agent's end before it ends): nothing to record of it.
    const startTime = await startTimeOf(pid);
    if (startTime) writeFileAtomic(ref.paths.wrapperPid, `${pid} ${startTime}\n`);
  }

  async observe(ref: SessionRef): Promise<SessionView> {
    const text = readText(ref.paths.wrapperPid);
    const wrapper = text === null ? null : parsePidRecord(text);
    if (!wrapper || !(await isAlive(wrapper.pid, wrapper.startTime))) return GONE;
    return { alive: true, where: hostname() };
  }

  async list(): Promise<Map<string, SessionView>> {
    const views = new Map<string, SessionView>();
    let ids: string[] = [];
    try {
      ids = readdirSync(dirname(recordsDir(this.root, 'any')));
    } catch {
      return views; // no records yet
    }
    for (const id of ids) {
      const view = await this.observe({ id, paths: runPaths(this.root, id) });
      if (view.alive) views.set(this.sessionName(id), view);
    }
    return views;
  }

  interrupt(ref: SessionRef, session: SessionRecord, grace: StopGrace): Promise<'gone' | NodeJS.Signals> {
    return interruptLocal(ref, session, grace);
  }

  /**
   * What tmux's kill-session does to a pane: SIGHUP to the wrapper's group. A wrapper past its
   * start ignores it and still records its agent's end (the agent is stopped through `interrupt`).
   */
  async stop(ref: SessionRef): Promise<void> {
    const text = readText(ref.paths.wrapperPid);
    const wrapper = text === null ? null : parsePidRecord(text);
    if (wrapper && (await isAlive(wrapper.pid, wrapper.startTime))) signalGroup(wrapper.pid, 'SIGHUP');
  }
}
