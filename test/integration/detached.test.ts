import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { alive, waitFor, type Sandbox } from '../helpers/harness.js';
import { itOn } from '../helpers/sandbox.js';

// A machine without tmux: launch picks the detached backend, and a whole night runs on it.

/** A PATH of one directory holding every command of the sandbox's PATH but `name` (as links). */
function pathWithout(sb: Sandbox, name: string): string {
  const dir = join(sb.dir, `no-${name}`);
  mkdirSync(dir);
  const seen = new Set([name]);
  for (const from of (sb.env.PATH ?? '').split(':').filter(Boolean)) {
    let entries: string[] = [];
    try {
      entries = readdirSync(from);
    } catch {
      continue; // a PATH entry that is not there
    }
    for (const e of entries.filter((e) => !seen.has(e))) {
      seen.add(e);
      symlinkSync(join(from, e), join(dir, e));
    }
  }
  return dir;
}

describe('detached backend', () => {
  // Its helpers look for detached wrappers; the backend itself is left for launch to pick.
  const it = itOn('detached');

  it('PATH without tmux: launch picks detached, doctor says so; a night through a crash to its report', async ({
    sb,
  }) => {
    const env = { PATH: pathWithout(sb, 'tmux'), OVERNIGHT_BACKEND: undefined };
    const doctor = await sb.run(['doctor', '--json'], { env });
    const { checks } = JSON.parse(doctor.stdout) as { checks: { name: string; status: string }[] };
    expect(checks.find((c) => c.name === 'backend')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^runs use the detached backend \(tmux is not on PATH\)/) as unknown,
    });
    expect(checks.find((c) => c.name === 'tmux')).toBeUndefined();

    // The first session crashes; the resumed one outlives the end time; the synthesis reports.
    sb.setBehaviour([{ work: 1, exit: 1 }, { work: 60 }, { report: true }]);
    const launch = await sb.run(['launch', '--duration', '5s', 'A night without tmux'], { env });
    expect(launch.exitCode, launch.stderr).toBe(0);
    expect(launch.stdout).toMatch(/^ {2}backend: {3}detached/m);
    expect(launch.stdout).not.toMatch(/^ {2}watch:/m);
    const id = (/^Launched (\S+)/m.exec(launch.stdout) as RegExpExecArray)[1] as string;
    expect(sb.read(sb.state(id, 'run.yaml'))).toMatch(/^backend: detached$/m);
    const first = await sb.wrapperPid(id);

    // The crash is recovered by the pass the wrapper starts, in a wrapper of the session's own.
    const second = await sb.agentPid(id, 2);
    await waitFor(() => !alive(first), { what: "session 1's wrapper gone" });
    expect(await sb.wrapperPid(id)).not.toBe(first);
    const status = await sb.run(['status', id], { env });
    expect(status.stdout).toMatch(/^backend: {4}detached$/m);
    expect(status.stdout).toMatch(new RegExp(`^watch: +overnight logs -f ${id}$`, 'm'));

    // Past the end time, a pass (cron's, here by hand) interrupts the agent for the synthesis.
    const endsAt = new Date(((await sb.status([], { env }))[0] as { endsAt: string }).endsAt);
    await waitFor(() => Date.now() > endsAt.getTime(), { what: 'the end time' });
    await sb.quiesce();
    const pass = await sb.run(['reconcile'], { env });
    expect(pass.exitCode, pass.stderr).toBe(0);
    // This pass's interrupt, or the end timer's a moment before it (armed by the wrapper's pass,
    // whose environment has no OVERNIGHT_END_TIMER=0).
    await waitFor(
      () => /"action":"interrupt","cause":"end-time"/.test(sb.read(sb.state(id, 'events.jsonl')) ?? ''),
      {
        what: 'the end-time interrupt',
      },
    );
    await waitFor(() => !alive(second), { what: 'session 2 ended' });
    const done = await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 20_000, what: 'DONE' });
    expect(done).toMatch(/REPORT\.md/);
    await sb.quiesce();

    expect(sb.calls()).toHaveLength(3);
    expect(sb.calls().every((c) => !alive(c.pid))).toBe(true);
    expect(await sb.hasSession(id)).toBe(false);
    const [row] = await sb.status<{
      state: string;
      restarts: number;
      backend: string;
    }>([], { env });
    expect(row).toMatchObject({ state: 'done', restarts: 1, backend: 'detached' });
    // The wrapper's own lines went to its log in the records, never to a terminal.
    expect(sb.read(sb.state(id, 'wrapper.log'))).toMatch(/session 3, agent pid/);
  });

  it('--backend kubernetes is refused as on paper only; --backend tmux without tmux names the way out', async ({
    sb,
  }) => {
    const k8s = await sb.run(['launch', '--backend', 'kubernetes', 'On a cluster'], {
      env: { OVERNIGHT_BACKEND: undefined },
    });
    expect(k8s.exitCode).toBe(2);
    expect(k8s.stderr).toMatch(/--backend kubernetes: the kubernetes backend exists on paper only/);
    const tmux = await sb.run(['launch', '--backend', 'tmux', 'Insist on tmux'], {
      env: { PATH: pathWithout(sb, 'tmux'), OVERNIGHT_BACKEND: undefined },
    });
    expect(tmux.exitCode).not.toBe(0);
    expect(tmux.stderr).toMatch(/tmux was not found on PATH; .*or launch with --backend detached/);
    expect(existsSync(sb.runs)).toBe(false); // refused before anything was made
  });
});
