// The chaos: kill -9 of agents, wrappers, the tmux server and reconcile passes mid-pass; stop,
// pause and resume; a full disk for a while. Every kill of an agent is written down: the judge
// counts a restart after it as a real crash.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import { isTmux } from './orphans.mjs';
import { cmdline, killQuietly, overnight, tmux, worldProcesses } from './world.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Monkey {
  constructor(world, rnd, log) {
    this.world = world;
    this.rnd = rnd;
    this.log = log;
    /** @type {Map<number, number>} each agent killed, and when */
    this.killed = new Map();
    /** @type {import('./summary.mjs').Faults} */
    this.counts = {
      agents: 0,
      wrappers: 0,
      tmux: 0,
      passes: 0,
      stops: 0,
      pauses: 0,
      fullDisks: 0,
      synthesisFailures: 0,
    };
    /** @type {Array<[number, number]>} when the disk was full */
    this.fullDisks = [];
    this.stopped = false;
    this.pending = new Set();
  }

  pick(list) {
    return list.length ? list[Math.floor(this.rnd() * list.length)] : undefined;
  }

  /**
   * One tick: at most one thing goes wrong, besides each run's own agent kill when its time comes.
   * `live` are the runs in their night and not too close to its end: past that, nothing kills an
   * agent, so only the supervisor's interrupt at the end time can start the synthesis.
   */
  tick(live) {
    const now = Date.now();
    for (const run of live) {
      if (run.killAt !== null && now >= run.killAt && this.killAgent(run)) run.killAt = null;
    }
    const r = this.rnd();
    const run = this.pick(live);
    if (!run) return;
    if (r < 0.04) this.killAgent(run);
    else if (r < 0.06) this.killWrapper(run.id);
    else if (r < 0.067) this.track(this.pauseAWhile(run));
    else if (r < 0.08) this.killPass();
    else if (r < 0.0815) this.killTmuxServer();
  }

  track(promise) {
    this.pending.add(promise);
    promise.finally(() => this.pending.delete(promise));
  }

  /** Kills an agent of the run that the judge knows (it has logged its start): never a blind kill. */
  killAgent(run) {
    const pid = this.pick(run.agents.alive());
    if (pid && killQuietly(pid)) {
      this.killed.set(pid, Date.now());
      this.counts.agents++;
      return true;
    }
    return false;
  }

  /** The run's wrapper, found by what it runs (agent.sh with the run's records), on either backend. */
  killWrapper(id) {
    const records = `/.overnight/${id}`;
    const wrapper = worldProcesses(this.world).find(
      (p) =>
        p.cmd.includes('agent.sh') &&
        p.cmd.includes(records) &&
        !p.cmd.includes('--exec-agent') &&
        !isTmux(p.cmd),
    );
    if (wrapper && cmdline(wrapper.pid).includes('agent.sh') && killQuietly(wrapper.pid))
      this.counts.wrappers++;
  }

  killTmuxServer() {
    if (this.world.backend !== 'tmux') return; // detached: no server to lose
    const pid = Number(tmux(this.world, ['display-message', '-p', '#{pid}']).trim());
    if (pid && killQuietly(pid)) this.counts.tmux++;
  }

  killPass() {
    const passes = worldProcesses(this.world).filter((p) => /overnight\.js reconcile\b/.test(p.cmd));
    const pass = this.pick(passes);
    if (pass && killQuietly(pass.pid)) this.counts.passes++;
  }

  /** Pauses a run for a while; the run's `pauses` get [from, to] (no agent is owed meanwhile). */
  async pauseAWhile(run) {
    const from = Date.now();
    const paused = await overnight(this.world, ['pause', run.id]);
    if (paused.code !== 0) return;
    this.counts.pauses++;
    await sleep(500 + this.rnd() * 2500);
    // A person whose resume fails tries again.
    try {
      for (let tries = 1; tries <= 30; tries++) {
        const resumed = await overnight(this.world, ['resume', run.id]);
        if (resumed.code === 0) return;
        this.log(`resume ${run.id} failed: ${resumed.stderr.trim()}`);
        await sleep(1000);
      }
    } finally {
      run.pauses.push([from, Date.now()]);
    }
  }

  /** Fills the runs root's tmpfs, holds it full for `ms`, then frees it. */
  async fillDisk(ms) {
    if (!this.world.tmpfs) return;
    const from = Date.now();
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
    this.counts.fullDisks++;
    await sleep(ms);
    rmSync(filler, { force: true });
    this.fullDisks.push([from, Date.now()]);
  }
}
