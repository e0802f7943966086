import { spawn } from 'node:child_process';
import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { RESUME_PROMPT } from '../../src/core/agent/briefing.js';
import { alive, waitFor, type Call, type Sandbox } from '../helpers/harness.js';
import { BACKENDS, it, itOn } from '../helpers/sandbox.js';

const arg = (c: Call, flag: string) => (c.argv.includes(flag) ? c.argv[c.argv.indexOf(flag) + 1] : undefined);

describe('recovery', () => {
  const restartLines = (sb: Sandbox, id: string) =>
    (sb.read(sb.state(id, 'restart.log')) ?? '').split('\n').filter((l) => l !== '');
  const lockDir = (sb: Sandbox) => join(sb.runs, '.reconcile.lock');

  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('resumes an agent killed with -9: --resume <same uuid>, the resume prompt, one restart.log line', async ({
      sb,
    }) => {
      sb.setBehaviour({ work: 30, child: true });
      const { id } = await sb.launch('Survive a kill', ['--duration', '1h']);
      const pid = await sb.agentPid(id);
      const child = Number(await waitFor(() => sb.read(join(sb.logDir, 'child.pid'))));
      const first = await waitFor(() => sb.calls()[0]);
      const uuid = arg(first, '--session-id');
      expect(uuid).toBeTruthy();

      process.kill(pid, 'SIGKILL');
      // What the agent started dies with it, though nobody signalled its process group.
      await waitFor(() => !alive(child), { what: `the killed agent's child ${child} gone` });
      // The wrapper starts a pass by itself; two more race it.
      const passes = await Promise.all([sb.run(['reconcile']), sb.run(['reconcile'])]);
      for (const p of passes) expect(p.exitCode, p.stderr).toBe(0);
      const pid2 = await sb.agentPid(id, 2);
      await sb.quiesce();

      const calls = sb.calls();
      expect(calls).toHaveLength(2);
      const resumed = calls[1] as Call;
      expect(arg(resumed, '--resume')).toBe(uuid);
      expect(resumed.argv).not.toContain('--session-id');
      expect(resumed.stdin).toBe(RESUME_PROMPT);
      const events = sb.events(id);
      expect(events).toContainEqual(
        expect.objectContaining({
          from: 'waiting',
          to: 'running',
          action: 'start',
          mode: 'resume',
          exit: 137,
        }),
      );
      expect(resumed.pid).toBe(pid2);
      expect(alive(pid2)).toBe(true);
      const lines = restartLines(sb, id);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/\tresume\texit=137\t/);
      const [row] = await sb.status<{
        state: string;
        restarts: number;
      }>();
      expect(row).toMatchObject({ state: 'running', restarts: 1 });
    });
  });

  it('fails the run after max_restarts crashes: FAILED says why, no agent is left, status agrees', async ({
    sb,
  }) => {
    sb.setBehaviour({ exit: 1 });
    const { id, workspace } = await sb.launch('Crash forever', ['--duration', '1h'], {
      OVERNIGHT_MAX_RESTARTS: '2',
    });
    // Nobody calls reconcile: the wrapper's own passes must get the run all the way to FAILED.
    const failed = await waitFor(() => sb.read(join(workspace, 'FAILED')), {
      timeout: 30_000,
      what: 'FAILED',
    });
    expect(failed.startsWith('circuit breaker: 2 restarts')).toBe(true);
    expect(failed).toContain('exit 1');
    await waitFor(() => existsSync(sb.state(id, 'final.json')), { what: 'final.json' });
    await sb.quiesce();

    const calls = sb.calls();
    expect(calls).toHaveLength(3);
    expect(calls.slice(1).map((c) => arg(c, '--resume'))).toEqual([
      arg(calls[0] as Call, '--session-id'),
      arg(calls[0] as Call, '--session-id'),
    ]);
    for (const c of calls) expect(alive(c.pid)).toBe(false);
    expect(await sb.hasSession(id)).toBe(false);
    expect(existsSync(join(workspace, 'DONE'))).toBe(false);
    expect(restartLines(sb, id)).toHaveLength(2);

    const [row] = await sb.status<{
      state: string;
      reason: string;
      restarts: number;
      maxRestarts: number;
    }>();
    expect(row?.state).toBe('failed');
    expect(row?.reason.startsWith('circuit breaker: 2 restarts')).toBe(true);
    expect(row).toMatchObject({ restarts: 2, maxRestarts: 2 });
  });

  it('two reconciles at once over a dead agent with no exit record resume it once, not twice', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 30 });
    const { id } = await sb.launch('Race the reconcilers', ['--duration', '1h']);
    await sb.crashUnderLock(id);
    // The crash window "agent gone, nothing recorded": no exit status, no pending request, no lock.
    rmSync(sb.state(id, 'agent-1.exit'));
    sb.releaseLock();

    const passes = await Promise.all([sb.run(['reconcile']), sb.run(['reconcile'])]);
    for (const p of passes) expect(p.exitCode, p.stderr).toBe(0);
    await sb.agentPid(id, 2);
    await sb.quiesce();

    expect(sb.calls()).toHaveLength(2);
    expect(restartLines(sb, id)).toHaveLength(1);
    expect(restartLines(sb, id)[0]).toMatch(/\tresume\texit=-\t/);
    expect(
      passes
        .map((p) => p.stdout)
        .join('\n')
        .match(/resumed/g),
    ).toHaveLength(1);
  });

  it('a pass finding the lock held says so and exits 0 at once; a stale lock is reclaimed', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 30 });
    const { id } = await sb.launch('Respect the lock', ['--duration', '1h']);
    await sb.crashUnderLock(id);

    // The hand-made lock is as fresh as a live holder's: a slow crash above must not age it to stale.
    utimesSync(lockDir(sb), new Date(), new Date());
    const started = Date.now();
    const held = await sb.run(['reconcile']);
    expect(held.exitCode).toBe(0);
    expect(held.stdout + held.stderr).toMatch(/another reconcile pass is running/);
    expect(Date.now() - started).toBeLessThan(10_000); // it did not wait for the lock
    expect(sb.calls()).toHaveLength(1);
    expect(existsSync(lockDir(sb))).toBe(true);

    // A lock left behind by a killed pass: its mtime stopped being refreshed a minute ago.
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockDir(sb), old, old);
    const reclaimed = await sb.run(['reconcile']);
    expect(reclaimed.exitCode, reclaimed.stderr).toBe(0);
    expect(reclaimed.stdout).toMatch(/resumed/);
    await sb.agentPid(id, 2);
    expect(sb.calls()).toHaveLength(2);
    expect(existsSync(lockDir(sb))).toBe(false);
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('resumes a run whose wrapper died first and whose orphaned agent died later', async ({ sb }) => {
      // E.g. the tmux session was killed by hand, then the agent ended. The orphan is reparented to
      // PID 1 and stays a zombie until PID 1 reaps it (late, or never for an init-less container):
      // a zombie still has /proc/<pid>/stat with its start time, but it is not a live agent.
      sb.setBehaviour({ work: 30 });
      const { id } = await sb.launch('Outlive the wrapper', ['--duration', '1h']);
      const pid = await sb.agentPid(id);
      process.kill(await sb.wrapperPid(id), 'SIGKILL');
      await waitFor(async () => !(await sb.hasSession(id)), { what: 'wrapper gone' });
      process.kill(pid, 'SIGKILL');
      await waitFor(() => !alive(pid), { what: 'agent dead' });

      const r = await sb.run(['reconcile']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/resumed/);
      await sb.agentPid(id, 2);
      expect(sb.calls()).toHaveLength(2);
    });

    it('an agent whose wrapper died is watched: its end starts the pass that resumes the run', async ({
      sb,
    }) => {
      // Nobody else would: no wrapper records this agent's end, and no schedule runs here.
      sb.setBehaviour([{ work: 60 }, { work: 60 }]);
      const { id } = await sb.launch('Outlive the wrapper, watched', ['--duration', '1h']);
      const pid = await sb.agentPid(id);
      process.kill(await sb.wrapperPid(id), 'SIGKILL');
      await waitFor(async () => !(await sb.hasSession(id)), { what: 'wrapper gone' });
      const pass = await sb.run(['reconcile']);
      expect(pass.exitCode, pass.stderr).toBe(0);
      expect(sb.read(sb.state(id, 'watch-agent'))).toMatch(new RegExp(`^agent:${pid}:`));
      // A second pass finds the watch at work and starts no other.
      const watch = (sb.read(sb.state(id, 'watch-agent')) ?? '').split(' ')[1];
      await sb.run(['reconcile']);
      expect((sb.read(sb.state(id, 'watch-agent')) ?? '').split(' ')[1]).toBe(watch);
      process.kill(pid, 'SIGKILL');
      await sb.agentPid(id, 2);
      expect(
        sb
          .events(id)
          .filter((e) => e.action === 'start')
          .at(-1),
      ).toMatchObject({
        session: 2,
        mode: 'resume',
      });
      await sb.run(['stop', id]);
      await waitFor(() => !alive(Number(watch)), { what: 'the watch gone with the run' });
    });
  });
});

describe('process identity', () => {
  it('a recorded pid now used by an unrelated process is a dead agent: the run is resumed', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 30 }, { work: 60 }]);
    const { id } = await sb.launch('Recycle my pid', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    const pidFile = sb.state(id, 'agent-1.pid');
    const [, startTime] = (sb.read(pidFile) ?? '').trim().split(' ');
    // Kill the wrapper first (no exit record, no triggered pass), then the agent.
    process.kill(await sb.wrapperPid(id), 'SIGKILL');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !alive(pid), { what: 'the agent gone' });
    // An unrelated live process now holds the pid the file names (with the agent's start time).
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    writeFileSync(pidFile, `${stranger.pid} ${startTime}\n`);
    try {
      const pass = await sb.run(['reconcile']);
      expect(pass.stdout).toMatch(/resumed \(restart 1\/5\): agent ended \(no exit status recorded\)/);
      expect(alive(stranger.pid as number)).toBe(true);
    } finally {
      stranger.kill();
    }
  });

  it('the exit race: an exit record that lands just after the pass looks is still used, not "no exit status"', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 30 }, { work: 60 }]);
    const { id } = await sb.launch('Race the record', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    process.kill(await sb.wrapperPid(id), 'SIGKILL');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !alive(pid), { what: 'the agent gone' });
    // A wrapper without its own record (one that could not write it): the race is waited out.
    rmSync(sb.state(id, 'wrapper-1.pid'));
    const pass = sb.run(['reconcile']);
    await new Promise((r) => setTimeout(r, 500));
    writeFileSync(sb.state(id, 'agent-1.exit'), `3 1 ${Math.floor(Date.now() / 1000)}\n`);
    expect((await pass).stdout).toMatch(/resumed \(restart 1\/5\): agent ended \(exit 3\)/);
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('after a reboot (tmux server, its socket directory, wrappers and agents gone, no exit records) one pass resumes every run', async ({
      sb,
    }) => {
      sb.setBehaviour({ work: 60 });
      const ids = [
        (await sb.launch('First of the night', ['--duration', '1h'])).id,
        (await sb.launch('Second of the night', ['--duration', '1h'])).id,
      ];
      const agents = await Promise.all(ids.map((id) => sb.agentPid(id)));
      const wrappers = await Promise.all(ids.map((id) => sb.wrapperPid(id)));
      for (const pid of [...wrappers, ...agents]) process.kill(pid, 'SIGKILL');
      await sb.tmux(['kill-server']);
      rmSync(join(sb.env.TMUX_TMPDIR as string, `tmux-${process.getuid?.() ?? 0}`), {
        recursive: true,
        force: true,
      });
      await waitFor(() => [...wrappers, ...agents].every((pid) => !alive(pid)), {
        what: 'every wrapper and agent gone',
      });
      for (const id of ids) expect(sb.read(sb.state(id, 'agent-1.exit'))).toBeNull();

      const pass = await sb.run(['reconcile']);
      expect(pass.exitCode, pass.stderr).toBe(0);
      for (const id of ids) {
        expect(pass.stdout).toContain(`${id}: resumed (restart 1/5): agent ended (no exit status recorded)`);
        await sb.agentPid(id, 2);
        expect(await sb.hasSession(id)).toBe(true);
      }
    });
  });
});
