import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { slurmFacts } from '../../src/adapters/slurm-doctor.js';
import { cancel, jobsByName, listJobs, submit, writeBatchScript } from '../../src/adapters/slurm.js';
import { DEFAULT_SLURM } from '../../src/core/config/slurm.js';
import { checkSlurm } from '../../src/core/doctor/slurm.js';
import { isActive, type SlurmJob } from '../../src/core/slurm/jobs.js';
import { jobName, jobsOfRun } from '../../src/core/slurm/submit.js';
import {
  holdCluster,
  jobWhen,
  loseNode,
  requireCluster,
  restoreNode,
  SLURM_WANTED,
  slurmCtx,
  until,
} from '../helpers/slurm.js';

// The Slurm adapter alone against a real single-node cluster (scripts/slurm-up.sh): see
// test/helpers/slurm.ts for how it is found, and why the node-loss test lives in this file.

describe.runIf(SLURM_WANTED)('Slurm adapter on a real cluster', () => {
  let dir = '';
  let batch = '';
  let worker = '';
  const tag = `t${process.pid}-${Date.now() % 100_000}`;

  let release: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    requireCluster();
    release = await holdCluster();
    const listing = await listJobs(slurmCtx());
    if ('error' in listing) throw new Error(`the cluster does not answer: ${listing.error}`);
    dir = mkdtempSync(join(tmpdir(), 'overnight-slurm-'));
    batch = join(dir, 'batch.sh');
    writeBatchScript(batch);
    // The job: records its args and pid, answers SIGINT, waits for a `go` file, exits with $EXIT.
    worker = join(dir, 'worker.sh');
    writeFileSync(
      worker,
      [
        'out=$1; shift',
        'printf "%s\\n" "$@" > "$out.args"',
        'echo $$ > "$out.pid"',
        'echo "${SLURM_RESTART_COUNT:-0}" >> "$out.starts"',
        'trap \'echo INT > "$out.int"; exit 0\' INT',
        'while [ ! -e "$out.go" ]; do sleep 0.1; done',
        'exit "${EXIT:-0}"',
        '',
      ].join('\n'),
    );
  }, 960_000);

  afterAll(async () => {
    for (const n of [1, 2, 3, 4, 5, 12]) await cancel(jobName(tag, n), slurmCtx()).catch(() => undefined);
    for (const n of [1, 2]) await cancel(jobName(`${tag}-2`, n), slurmCtx()).catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
    await release?.();
  });

  const start = async (run: string, session: number, env: Record<string, string> = {}) => {
    const name = jobName(run, session);
    const out = join(dir, name);
    const r = await submit(
      {
        name,
        cwd: dir,
        minutes: 5,
        output: `${out}.log`,
        script: batch,
        args: ['/bin/sh', worker, out, "it's one word", 'two  spaces', '$HOME', '--'],
        slurm: DEFAULT_SLURM,
      },
      { env: { ...slurmCtx().env, ...env } },
    );
    if ('error' in r) throw new Error(r.error);
    return { name, out, jobId: r.jobId };
  };

  it('a job by name: running, then completed with its exit code; its args intact', async () => {
    const s = await start(tag, 1, { EXIT: '3' });
    const running = await jobWhen(s.name, (j) => j.state === 'RUNNING', 'running');
    expect(running).toMatchObject({ jobId: s.jobId, node: expect.any(String), restartCount: 0 });
    expect(running.userId).toBe(process.getuid?.());
    await until('args recorded', async () => existsSync(`${s.out}.args`) || null);
    expect(readFileSync(`${s.out}.args`, 'utf8')).toBe("it's one word\ntwo  spaces\n$HOME\n--\n");
    writeFileSync(`${s.out}.go`, '');
    const ended = await jobWhen(s.name, (j) => !isActive(j.state), 'ended');
    expect(ended).toMatchObject({ state: 'FAILED', exit: { code: 3, signal: null }, jobId: s.jobId });
  });

  it('cancel by name: the job ends and its process is gone', async () => {
    const s = await start(tag, 2);
    await jobWhen(s.name, (j) => j.state === 'RUNNING', 'running');
    const pid = Number(
      await until('pid', async () =>
        existsSync(`${s.out}.pid`) ? readFileSync(`${s.out}.pid`, 'utf8') : null,
      ),
    );
    const t0 = Date.now();
    expect(await cancel(s.name, slurmCtx())).toEqual({ ok: true });
    const ended = await jobWhen(s.name, (j) => !isActive(j.state), 'cancelled');
    expect(ended.state).toBe('CANCELLED');
    await until('process gone', async () => {
      try {
        process.kill(pid, 0);
        return null;
      } catch {
        return true;
      }
    });
    expect(Date.now() - t0).toBeLessThan(15_000);
    // Cancelling a name with no job left is no error.
    expect(await cancel(s.name, slurmCtx())).toEqual({ ok: true });
  });

  it('--signal=INT --batch reaches the batch script alone, which ends cleanly', async () => {
    const s = await start(tag, 3);
    await jobWhen(s.name, (j) => j.state === 'RUNNING', 'running');
    await until('trap set', async () => existsSync(`${s.out}.pid`) || null);
    expect(await cancel(s.name, slurmCtx(), { signal: 'INT', to: 'batch' })).toEqual({ ok: true });
    await until('INT trapped', async () => existsSync(`${s.out}.int`) || null);
    const ended = await jobWhen(s.name, (j) => !isActive(j.state), 'ended');
    expect(ended).toMatchObject({ state: 'COMPLETED', exit: { code: 0, signal: null } });
  });

  it('--signal=INT to the job reaches the agent, not only a wrapper that ignores it', async () => {
    // The wrapper's shape: the agent in its own process group, SIGINT ignored by the wrapper.
    // A shell cannot trap a signal ignored when it started; the agent (node) sets its own handler.
    const agent = join(dir, 'agent.mjs');
    writeFileSync(
      agent,
      [
        "import { writeFileSync } from 'node:fs';",
        "writeFileSync(process.argv[2] + '.pid', String(process.pid));",
        "process.on('SIGINT', () => { writeFileSync(process.argv[2] + '.int', 'agent'); process.exit(0); });",
        'setInterval(() => {}, 1000);',
        '',
      ].join('\n'),
    );
    const wrapper = join(dir, 'wrapper.sh');
    writeFileSync(
      wrapper,
      [
        'set -m',
        '"$NODE" "$AGENT" "$1" &',
        'pid=$!',
        "trap '' INT HUP",
        'wait "$pid"',
        'echo "$?" > "$1.exit"',
        '',
      ].join('\n'),
    );
    const name = jobName(tag, 5);
    const out = join(dir, name);
    const r = await submit(
      {
        name,
        cwd: dir,
        minutes: 5,
        output: `${out}.log`,
        script: batch,
        args: ['/bin/sh', wrapper, out],
        slurm: DEFAULT_SLURM,
      },
      slurmCtx({ NODE: process.execPath, AGENT: agent }),
    );
    if ('error' in r) throw new Error(r.error);
    await until('agent started', async () => existsSync(`${out}.pid`) || null);
    expect(await cancel(name, slurmCtx(), { signal: 'INT' })).toEqual({ ok: true });
    await until('agent interrupted', async () => existsSync(`${out}.int`) || null);
    await until('wrapper recorded the exit', async () => (existsSync(`${out}.exit`) ? true : null));
    expect(readFileSync(`${out}.exit`, 'utf8').trim()).toBe('0');
    const ended = await jobWhen(name, (j) => !isActive(j.state), 'ended');
    expect(ended).toMatchObject({ state: 'COMPLETED', exit: { code: 0, signal: null } });
  });

  it('doctor: commands, controller, munge, and a test job that reads and writes the runs root', async () => {
    const root = mkdtempSync(join(dir, 'root-'));
    const facts = await slurmFacts(slurmCtx().env, { wanted: true, root, slurm: DEFAULT_SLURM });
    const rows = checkSlurm(facts);
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['slurm', 'ok'],
      ['slurm controller', 'ok'],
      ['munge', 'ok'],
      ['slurm node', 'ok'],
    ]);
    expect(rows[0]?.detail).toMatch(/^slurm[\w-]* \d+\.\d+/);
    // Nothing left behind: no probe directory, no job still queued.
    expect(readdirSync(root)).toEqual([]);
    const refused = await slurmFacts(slurmCtx().env, {
      wanted: true,
      root,
      slurm: { ...DEFAULT_SLURM, partition: 'nonexistent' },
    });
    expect(checkSlurm(refused).at(-1)).toMatchObject({ name: 'slurm node', status: 'problem' });
    expect(checkSlurm(refused).at(-1)?.detail).toMatch(/refused: sbatch exited 1: .*partition/i);
  });

  it('a squeue without --json: the same jobs from scontrol show job -o', async () => {
    const fake = join(dir, 'bin');
    mkdirSync(fake);
    writeFileSync(
      join(fake, 'squeue'),
      '#!/bin/sh\necho "squeue: unrecognized option --json" >&2\nexit 1\n',
      {
        mode: 0o755,
      },
    );
    const env = { ...slurmCtx().env, PATH: `${fake}:${slurmCtx().env.PATH}` };
    const [viaScontrol, viaJson] = await Promise.all([listJobs({ env }), listJobs(slurmCtx())]);
    if ('error' in viaScontrol || 'error' in viaJson) throw new Error(JSON.stringify([viaScontrol, viaJson]));
    const mine = (l: SlurmJob[]) =>
      l.filter((j) => j.name.startsWith(`overnight-${tag}-`)).sort((x, y) => x.jobId - y.jobId);
    expect(mine(viaScontrol.jobs).length).toBeGreaterThan(0);
    expect(mine(viaScontrol.jobs)).toEqual(mine(viaJson.jobs));
  });

  it('names are told apart: session 1 from 12, a run from one whose id extends it', async () => {
    const a = await start(`${tag}-2`, 1);
    const b = await start(tag, 12);
    await jobWhen(a.name, (j) => j.state === 'RUNNING', 'running');
    await jobWhen(b.name, (j) => j.state === 'RUNNING', 'running');
    const byA = await jobsByName(a.name, slurmCtx());
    const byB = await jobsByName(b.name, slurmCtx());
    expect('jobs' in byA && byA.jobs.map((j) => j.jobId)).toEqual([a.jobId]);
    expect('jobs' in byB && byB.jobs.map((j) => j.jobId)).toEqual([b.jobId]);
    const listing = await listJobs(slurmCtx());
    if ('error' in listing) throw new Error(listing.error);
    const uid = process.getuid?.() ?? null;
    expect(jobsOfRun(listing.jobs, `${tag}-2`, uid).map((j) => j.jobId)).toEqual([a.jobId]);
    expect(jobsOfRun(listing.jobs, tag, uid).map((j) => j.name)).not.toContain(a.name);
    expect(jobsOfRun(listing.jobs, tag, uid).map((j) => j.jobId)).toContain(b.jobId);
    // Cancelling one leaves the other running.
    await cancel(a.name, slurmCtx());
    await jobWhen(a.name, (j) => !isActive(j.state), 'cancelled');
    expect((await jobWhen(b.name, () => true, 'listed')).state).toBe('RUNNING');
    writeFileSync(`${b.out}.go`, '');
    await jobWhen(b.name, (j) => j.state === 'COMPLETED', 'completed');
  });

  // Last: it takes the node down, and every job on the cluster with it. Killing and starting
  // slurmd needs root (as the cluster's daemons run). The requeued job is left to its hold (about
  // 2 minutes by default, about 25 s with the test cluster's cred_expire=10): one released early
  // (`scontrol update StartTime=now`) fails for good, "Job credential revoked".
  it.skipIf(process.getuid?.() !== 0)(
    'node lost (slurmd killed): requeued, held, counted once, run again with SLURM_RESTART_COUNT=1 (as root)',
    { timeout: 180_000 },
    async () => {
      const s = await start(tag, 4);
      await jobWhen(s.name, (j) => j.state === 'RUNNING', 'running');
      await until('started', async () => existsSync(`${s.out}.starts`) || null);
      const first = Number(readFileSync(`${s.out}.pid`, 'utf8'));
      try {
        await loseNode();
        const held = await jobWhen(s.name, (j) => j.restartCount === 1, 'requeued', 60_000);
        // Its reason is None at first, then BeginTime: the hold of about 2 minutes.
        expect(held).toMatchObject({ jobId: s.jobId, state: 'PENDING' });
      } finally {
        await restoreNode();
      }
      // The first run's shell lives on while its slurmd is gone; it is killed when slurmd returns.
      await until('first run gone', async () => (existsSync(`/proc/${first}`) ? null : true));
      // Held while its old credential is revoked (cred_expire=10 on the test cluster: about 25 s).
      const again = await jobWhen(s.name, (j) => j.state === 'RUNNING', 'running again', 90_000);
      expect(again).toMatchObject({ jobId: s.jobId, restartCount: 1 });
      await until('started again', async () =>
        readFileSync(`${s.out}.starts`, 'utf8') === '0\n1\n' ? true : null,
      );
      writeFileSync(`${s.out}.go`, '');
      const ended = await jobWhen(s.name, (j) => !isActive(j.state), 'ended');
      expect(ended).toMatchObject({ state: 'COMPLETED', restartCount: 1 });
    },
  );
});
