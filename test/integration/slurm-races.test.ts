import { join } from 'node:path';
import { execa } from 'execa';
import lockfile from 'proper-lockfile';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';

import { alive, BIN, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import { holdCluster, requireCluster, SLURM_CONF, SLURM_WANTED, slurmNights } from '../helpers/slurm.js';

// Passes racing on the shared runs root of a real cluster (scripts/slurm-up.sh): several at once,
// from two "hosts" (process trees in UTS namespaces of their own, each with its own hostname, as
// two machines sharing the root would be). The lock keeps one at a time; the duplicate guard asks
// Slurm, not this machine's /proc.

/** `overnight reconcile` in a process tree whose hostname is `host` (unshare --uts, as root). */
async function passOn(sb: Sandbox, host: string, env: Record<string, string>) {
  // The tree checks it has the name before running the pass: 99 if the namespace did not take.
  const script = 'hostname "$0" && [ "$(hostname)" = "$0" ] || exit 99; exec "$@"';
  const r = await execa('unshare', ['--uts', 'sh', '-c', script, host, process.execPath, BIN, 'reconcile'], {
    env: { ...sb.env, ...env },
    extendEnv: false,
    reject: false,
    cwd: sb.dir,
    stdin: 'ignore',
    timeout: 60_000,
  });
  return { host, exitCode: r.exitCode, stderr: String(r.stderr) };
}

describe.runIf(SLURM_WANTED)('slurm: passes at once on the shared root', () => {
  let env: Record<string, string> = {};
  const { launch, runJobs, activeJobs, nothingLeft, cancelLeft } = slurmNights(() => env);
  let release: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    requireCluster();
    env = { OVERNIGHT_BACKEND: 'slurm', SLURM_CONF: SLURM_CONF as string };
    release = await holdCluster();
  }, 960_000);

  afterAll(async () => {
    await release?.();
  });

  afterEach(cancelLeft);

  it('the agent died; four passes at once from two hosts start one job and one agent, counted once', async ({
    sb,
  }) => {
    if (process.getuid?.() !== 0)
      throw new Error('two hostnames need unshare --uts, as root (CI runs as root)');
    sb.setBehaviour([{ work: 120 }, { work: 120 }, { work: 120 }]);
    const id = await launch(sb, '10m', { FAKE_CLAUDE_EXCLUSIVE: '1' });
    const first = await sb.agentPid(id, 1, 30_000);

    // The agent dies while a pass holds the lock (the test's, refreshed as a pass's is): the
    // wrapper's exit-triggered pass tries for 5 s and bows out, so the restart is left to the racers.
    const lock = join(sb.runs, '.reconcile.lock');
    const unlock = await lockfile.lock(lock, { lockfilePath: lock, realpath: false, stale: 10_000 });
    try {
      process.kill(first, 'SIGKILL');
      await waitFor(() => /^137 1 /.test(sb.read(sb.state(id, 'agent-1.exit')) ?? ''), { what: 'exit 137' });
      await waitFor(async () => (await activeJobs(id)).length === 0, {
        timeout: 30_000,
        what: 'the wrapper gave up and its job ended',
      });
    } finally {
      await unlock();
    }
    expect(sb.read(sb.state(id, 'agent-2.pid'))).toBeNull();

    const passes = await Promise.all(['alpha', 'beta', 'alpha', 'beta'].map((host) => passOn(sb, host, env)));
    for (const p of passes) expect(p.exitCode, `${p.host}: ${p.stderr}`).toBe(0);

    // One new job of the run (session 2, counted by name in squeue), one new agent (the fake's own
    // record of its invocations), restarts counted once.
    const names = (await runJobs(id)).map((j) => j.name).sort();
    expect(names).toEqual([`overnight-${id}-1`, `overnight-${id}-2`]);
    const second = await sb.agentPid(id, 2, 30_000);
    expect(sb.calls().map((c) => c.pid)).toEqual([first, second]);
    expect(sb.calls()[1]?.argv).toContain('--resume');
    const [row] = await sb.status<{ restarts: number }>([id], { env });
    expect(row?.restarts).toBe(1);
    expect(alive(second)).toBe(true);
    expect(sb.read(join(sb.logDir, 'duplicates.jsonl'))).toBeNull();

    await sb.run(['stop', id], { env });
    await nothingLeft(sb, id);
  }, 120_000);
});
