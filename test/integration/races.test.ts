import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';

import { alive, BIN, waitFor, type Sandbox } from '../helpers/harness.js';
import { BACKENDS, it, itOn } from '../helpers/sandbox.js';

// Races a night can lose: stop while a pass starts the next session, tmux refusing a session,
// a retry due while the run is paused, and wake timers outliving their run.

const restartLines = (sb: Sandbox, id: string) =>
  (sb.read(sb.state(id, 'restart.log')) ?? '').split('\n').filter((l) => l !== '');
/** The pid of the run's wake timer as recorded: `<time> <pid> <start time>`. */
const timerPid = (sb: Sandbox, id: string) => Number((sb.read(sb.state(id, 'wake-at')) ?? '').split(' ')[1]);

/** A directory for the PATH with `name` as a script: a stand-in for a system command. */
function shim(sb: Sandbox, name: string, script: string): string {
  const dir = join(sb.dir, `shim-${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), script);
  chmodSync(join(dir, name), 0o755);
  return dir;
}

/** tmux, except that `new-session` is refused while the counter file holds a number above 0. */
function refusingTmux(sb: Sandbox): { path: string; refuse: (times: number) => void } {
  const counter = join(sb.dir, 'refuse-new-session');
  writeFileSync(counter, '0');
  const dir = shim(
    sb,
    'tmux',
    [
      '#!/bin/sh',
      'for a in "$@"; do',
      '  if [ "$a" = new-session ]; then',
      `    n=$(cat '${counter}')`,
      '    if [ "$n" -gt 0 ]; then',
      `      echo $((n - 1)) > '${counter}'`,
      "      echo 'server exited unexpectedly' >&2",
      '      exit 1',
      '    fi',
      '  fi',
      'done',
      'exec /usr/bin/tmux "$@"',
      '',
    ].join('\n'),
  );
  return { path: `${dir}:${sb.env.PATH}`, refuse: (times) => writeFileSync(counter, String(times)) };
}

describe('races', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('stop during a restart: the session a pass just started never runs an agent after stop returns', async ({
      sb,
    }) => {
      // A slow flush widens the window between a session's start and its agent's pid record.
      const slow = shim(sb, 'sync', '#!/bin/sh\nsleep 2\n');
      sb.setBehaviour({ work: 60 });
      const { id } = await sb.launch('Stop me mid-restart', ['--duration', '1h'], {
        PATH: `${slow}:${sb.env.PATH}`,
      });
      const first = await sb.agentPid(id);
      process.kill(first, 'SIGKILL');
      // The pass the exit starts records session 2; stop lands while its agent is on its way.
      await waitFor(() => /"n":2/.test(sb.read(sb.state(id, 'session.json')) ?? ''), {
        timeout: 20_000,
        what: 'session 2 recorded',
      });
      const stop = await sb.run(['stop', id]);
      expect(stop.exitCode, stop.stderr).toBe(0);
      const agents = () => sb.calls().filter((c) => alive(c.pid));
      expect(agents()).toEqual([]);
      // Nor the wrapper (passes aside: a pass is no process of the run).
      expect(sb.processes().filter((p) => !/overnight\.js reconcile\b/.test(p.cmdline))).toEqual([]);
      // And none comes later: the second session's agent saw DONE and never started.
      await sb.quiesce();
      expect(agents()).toEqual([]);
      expect(sb.read(sb.state(id, 'final.json'))).toBeTruthy();
    });
  });

  it('tmux refusing new-session while its server exits: tried again within the pass, no restart wasted', async ({
    sb,
  }) => {
    const tmux = refusingTmux(sb);
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Refused twice', ['--duration', '1h'], { PATH: tmux.path });
    const first = await sb.agentPid(id);
    tmux.refuse(2);
    process.kill(first, 'SIGKILL');
    await sb.agentPid(id, 2);
    expect(restartLines(sb, id)).toHaveLength(1);
  });

  it('a session tmux never started is started again, not counted as a crash', async ({ sb }) => {
    const tmux = refusingTmux(sb);
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Refused for a whole pass', ['--duration', '1h'], { PATH: tmux.path });
    const first = await sb.agentPid(id);
    tmux.refuse(5); // every try of the wrapper's pass
    process.kill(first, 'SIGKILL');
    await waitFor(() => /"n":2/.test(sb.read(sb.state(id, 'session.json')) ?? ''), { what: 'session 2' });
    await sb.quiesce(30_000);
    expect(sb.read(sb.state(id, 'agent-2.pid'))).toBeNull();

    const pass = await sb.run(['reconcile'], { env: { PATH: tmux.path } });
    expect(pass.stdout).toMatch(/started session 2 again: session 2 never started its agent/);
    await sb.agentPid(id, 2);
    expect(restartLines(sb, id)).toHaveLength(1);
    expect(sb.events(id)).toContainEqual(
      expect.objectContaining({ action: 'start', session: 2, again: true }),
    );
    const [row] = await sb.status<{ restarts: number }>();
    expect(row?.restarts).toBe(1);
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('a pass whose working directory was removed (a run’s workspace) still starts sessions', async ({
      sb,
    }) => {
      sb.setBehaviour({ work: 60 });
      const { id } = await sb.launch('Lose the cwd', ['--duration', '1h']);
      await sb.crashUnderLock(id);
      sb.releaseLock();
      const gone = join(sb.dir, 'gone');
      mkdirSync(gone);
      const r = await execa(
        '/bin/sh',
        ['-c', `cd '${gone}' && rmdir '${gone}' && exec "$0" "$1" reconcile`, process.execPath, BIN],
        {
          env: sb.env,
          extendEnv: false,
          reject: false,
        },
      );
      expect(r.exitCode, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/resumed/);
      await sb.agentPid(id, 2);
    });
  });

  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('a pass killed between recording a session and starting it: the next pass starts it again, counted once', async ({
      sb,
    }) => {
      sb.setBehaviour({ work: 60 });
      const { id } = await sb.launch('Killed mid-start', ['--duration', '1h']);
      await sb.crashUnderLock(id);
      // What the killed pass left: session 2 and its restart.log line recorded, no wrapper started.
      const at = new Date(Date.now() - 20_000).toISOString();
      writeFileSync(
        sb.state(id, 'session.json'),
        `${JSON.stringify({ n: 2, mode: 'resume', startedAt: at })}\n`,
      );
      appendFileSync(
        sb.state(id, 'restart.log'),
        `${at}\tresume\texit=137\tuptime=1s\tagent ended (exit 137)\n`,
      );
      sb.releaseLock();

      const pass = await sb.run(['reconcile']);
      expect(pass.stdout).toMatch(/started session 2 again: session 2 never started its agent/);
      await sb.agentPid(id, 2);
      expect(await sb.hasSession(id)).toBe(true);
      expect(restartLines(sb, id)).toHaveLength(1);
      expect(sb.calls()).toHaveLength(2);
    });
  });

  it('pause across a pending retry, then resume: the retry happens without a schedule', async ({ sb }) => {
    sb.setBehaviour([{ exit: 1 }, { exit: 1 }, { work: 60 }]);
    const { id } = await sb.launch('Pause while backing off', ['--duration', '1h'], {
      OVERNIGHT_BACKOFF: '2s',
      OVERNIGHT_HEALTHY_AFTER: '1h',
    });
    // The second crash backs off: a wake timer is armed for the next try.
    await waitFor(() => timerPid(sb, id), { timeout: 20_000, what: 'the wake timer' });
    const timer = timerPid(sb, id);
    expect((await sb.run(['pause', id])).exitCode).toBe(0);
    // The timer fires during the pause and its pass leaves the paused run alone.
    await waitFor(() => !alive(timer), { timeout: 20_000, what: 'the timer to fire' });
    await sb.quiesce();
    expect(sb.calls()).toHaveLength(2);

    const resumed = await sb.run(['resume', id]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    await waitFor(() => sb.calls()[2], { what: 'the third session' });
  });

  it('stop cancels the run’s wake timer', async ({ sb }) => {
    sb.setBehaviour({ exit: 1 });
    const { id } = await sb.launch('Stop while backing off', ['--duration', '1h'], {
      OVERNIGHT_BACKOFF: '1h',
      OVERNIGHT_BACKOFF_MAX: '1h',
      OVERNIGHT_HEALTHY_AFTER: '1h',
    });
    await waitFor(() => timerPid(sb, id), { timeout: 20_000, what: 'the wake timer' });
    const timer = timerPid(sb, id);
    expect(alive(timer)).toBe(true);
    expect((await sb.run(['stop', id])).exitCode).toBe(0);
    expect(alive(timer)).toBe(false);
  });
});
