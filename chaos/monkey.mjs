// The chaos: kill -9 of agents, wrappers, the tmux server and reconcile passes mid-pass; stop,
// pause and resume; a full disk for a while. Every kill of an agent is written down: the judge
// counts a restart after it as a real crash.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import { cmdline, killQuietly, overnight, procStart, tmux, worldProcesses } from './world.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function currentAgent(world, id) {
  try {
    const state = join(world.runs, '.overnight', id);
    const { n } = JSON.parse(readFileSync(join(state, 'session.json'), 'utf8'));
    const [pid, start] = readFileSync(join(state, `agent-${n}.pid`), 'utf8')
      .trim()
      .split(' ');
    return procStart(Number(pid)) === start ? Number(pid) : null;
  } catch {
    return null;
  }
}

export class Monkey {
  constructor(world, rnd, log) {
    this.world = world;
    this.rnd = rnd;
    this.log = log;
    this.killed = new Set();
    this.counts = { agents: 0, wrappers: 0, tmuxServer: 0, passes: 0, pauses: 0, diskFull: 0 };
    this.stopped = false;
    this.pending = new Set();
  }

  pick(list) {
    return list.length ? list[Math.floor(this.rnd() * list.length)] : undefined;
  }

  /** One tick: at most one thing goes wrong. `live` are the runs still in their night. */
  tick(live) {
    const r = this.rnd();
    const run = this.pick(live);
    if (!run) return;
    if (r < 0.04) this.killAgent(run.id);
    else if (r < 0.06) this.killWrapper(run.id);
    else if (r < 0.067) this.track(this.pauseAWhile(run.id));
    else if (r < 0.07) this.killPass();
    else if (r < 0.0715) this.killTmuxServer();
  }

  track(promise) {
    this.pending.add(promise);
    promise.finally(() => this.pending.delete(promise));
  }

  killAgent(id) {
    const pid = currentAgent(this.world, id);
    if (pid && killQuietly(pid)) {
      this.killed.add(pid);
      this.counts.agents++;
    }
  }

  killWrapper(id) {
    const pid = Number(
      tmux(this.world, ['list-panes', '-t', `=overnight-${id}`, '-F', '#{pane_pid}']).trim(),
    );
    if (pid && cmdline(pid).includes('agent.sh') && killQuietly(pid)) this.counts.wrappers++;
  }

  killTmuxServer() {
    const pid = Number(tmux(this.world, ['display-message', '-p', '#{pid}']).trim());
    if (pid && killQuietly(pid)) this.counts.tmuxServer++;
  }

  killPass() {
    const passes = worldProcesses(this.world).filter((p) => /overnight\.js reconcile\b/.test(p.cmd));
    const pass = this.pick(passes);
    if (pass && killQuietly(pass.pid)) this.counts.passes++;
  }

  async pauseAWhile(id) {
    const paused = await overnight(this.world, ['pause', id]);
    if (paused.code !== 0) return;
    this.counts.pauses++;
    await sleep(500 + this.rnd() * 2500);
    // A person whose resume fails tries again.
    for (let tries = 1; tries <= 30; tries++) {
      const resumed = await overnight(this.world, ['resume', id]);
      if (resumed.code === 0) return;
      this.log(`resume ${id} failed: ${resumed.stderr.trim()}`);
      await sleep(1000);
    }
  }

  /** Fills the runs root's tmpfs, holds it full for `ms`, then frees it. */
  async fillDisk(ms) {
    if (!this.world.tmpfs) return;
    const filler = join(this.world.runs, '.chaos-filler');
    const fd = openSync(filler, 'w');
    const block = Buffer.alloc(1024 * 1024);
    try {
      for (const size of [block.length, 4096]) {
        try {
          for (;;) writeSync(fd, block, 0, size);
        } catch (err) {
          if (err.code !== 'ENOSPC') throw err;
        }
      }
    } finally {
      closeSync(fd);
    }
    this.counts.diskFull++;
    await sleep(ms);
    rmSync(filler, { force: true });
  }
}
