import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';

import { cancel } from '../../src/adapters/slurm.js';
import { alive, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import {
  holdCluster,
  requireCluster,
  SLURM_CONF,
  SLURM_WANTED,
  slurmCtx,
  slurmNights,
} from '../helpers/slurm.js';

// Whole nights on the slurm backend, against the real single-node cluster of scripts/slurm-up.sh
// (see test/helpers/slurm.ts for how it is found): each session a batch job, observed by name.

const scontrol = (...args: string[]) => execa('scontrol', args, { env: { SLURM_CONF }, timeout: 10_000 });

describe.runIf(SLURM_WANTED)('slurm backend on a real cluster', () => {
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

  it('launch to DONE: the end time interrupts the job through scancel, the synthesis reports', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 120 }, { report: true }]);
    const id = await launch(sb, '6s');
    const first = await sb.agentPid(id, 1, 30_000);
    expect(sb.read(sb.state(id, 'run.yaml'))).toMatch(/^backend: slurm$/m);

    // status shows the session's job: its id, node and state.
    const json = JSON.parse((await sb.run(['status', '--json'], { env })).stdout) as {
      id: string;
      backend: string;
      job?: { id: number; node: string; state: string; restarts: number };
    }[];
    const row = json.find((r) => r.id === id);
    const [job] = await runJobs(id);
    expect(row).toMatchObject({
      backend: 'slurm',
      job: { id: job?.jobId, node: expect.any(String) as unknown, state: 'RUNNING', restarts: 0 },
    });
    expect(job?.name).toBe(`overnight-${id}-1`);
    const status = await sb.run(['status', id], { env });
    expect(status.stdout).toMatch(new RegExp(`^slurm job: +${job?.jobId} on \\S+, RUNNING$`, 'm'));

    // Past the end time, a pass (cron's, here by hand) interrupts the agent through Slurm.
    const endsAt = new Date(JSON.parse((await sb.run(['status', '--json'], { env })).stdout)[0].endsAt);
    await waitFor(() => Date.now() > endsAt.getTime(), { timeout: 30_000, what: 'the end time' });
    const pass = await sb.run(['reconcile'], { env });
    expect(pass.exitCode, pass.stderr).toBe(0);
    await waitFor(
      () => /"action":"interrupt","cause":"end-time"/.test(sb.read(sb.state(id, 'events.jsonl')) ?? ''),
      {
        what: 'the end-time interrupt',
      },
    );
    // SIGINT reached the agent (the fake ends cleanly on it), not only the wrapper, which ignores it:
    // long before its 120 s of work, with its exit recorded.
    await waitFor(() => !alive(first), { what: 'session 1 interrupted' });
    expect(sb.read(sb.state(id, 'agent-1.exit'))).toMatch(/^\d+ 1 /);
    // The wrapper's pass (inside the job) starts the synthesis as job 2; it writes the report.
    const done = await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 60_000, what: 'DONE' });
    expect(done).toMatch(/REPORT\.md/);
    expect(sb.read(sb.ws(id, 'REPORT.md'))).not.toBeNull();
    expect((await runJobs(id)).map((j) => j.name).sort()).toEqual([`overnight-${id}-1`, `overnight-${id}-2`]);
    await nothingLeft(sb, id);
  });

  it('kill -9 of the agent: resumed in a new job, counted once; stop leaves no job and no process', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 120 }, { work: 120 }]);
    const id = await launch(sb, '10m');
    const first = await sb.agentPid(id, 1, 30_000);
    process.kill(first, 'SIGKILL');
    const second = await sb.agentPid(id, 2, 60_000);
    expect(sb.read(sb.state(id, 'agent-1.exit'))).toMatch(/^137 1 /);
    const resumed = sb.calls().find((c) => c.pid === second);
    expect(resumed?.argv).toContain('--resume');
    const row = (
      JSON.parse((await sb.run(['status', '--json'], { env })).stdout) as {
        id: string;
        restarts: number;
        job?: { state: string };
      }[]
    ).find((r) => r.id === id);
    expect(row).toMatchObject({ restarts: 1, job: { state: 'RUNNING' } });
    expect((await activeJobs(id)).map((j) => j.name)).toEqual([`overnight-${id}-2`]);

    const stop = await sb.run(['stop', id], { env });
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(sb.read(sb.ws(id, 'DONE'))).toMatch(/stopped/i);
    await nothingLeft(sb, id);
    expect(alive(second)).toBe(false);
  });

  it('requeued by Slurm: the job run again starts no second agent; resumed in a new job, counted once', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 120 }, { work: 120 }]);
    const id = await launch(sb, '10m');
    const first = await sb.agentPid(id, 1, 30_000);
    const [job] = await runJobs(id);
    // What Slurm does when it loses a node: the job's processes end, and it runs again later (after
    // the hold on requeued jobs) with SLURM_RESTART_COUNT=1.
    await scontrol('requeue', String(job?.jobId));
    await waitFor(() => !alive(first), { what: 'the first run ended' });
    const second = await sb.agentPid(id, 2, 120_000);
    expect(sb.read(sb.state(id, 'output.log'))).toMatch(/restart 1\): session 1 already started its agent/);
    expect(sb.read(sb.state(id, 'agent-1.exit'))).toMatch(/^137 1 /);
    expect(sb.calls().find((c) => c.pid === second)?.argv).toContain('--resume');
    // One agent per session: session 1 ran once, whatever Slurm ran again.
    expect(sb.calls().filter((c) => c.pid !== first && c.pid !== second)).toEqual([]);
    const rows = JSON.parse((await sb.run(['status', '--json'], { env })).stdout) as {
      id: string;
      restarts: number;
    }[];
    expect(rows.find((r) => r.id === id)?.restarts).toBe(1);
    await sb.run(['stop', id], { env });
    await nothingLeft(sb, id);
  }, 180_000);

  it('scancel from outside: the next pass resumes the conversation as a crash', async ({ sb }) => {
    sb.setBehaviour([{ work: 120 }, { work: 120 }]);
    const id = await launch(sb, '10m');
    const first = await sb.agentPid(id, 1, 30_000);
    expect(await cancel(`overnight-${id}-1`, slurmCtx())).toEqual({ ok: true });
    await waitFor(() => !alive(first), { what: 'the agent ended with its job' });
    await waitFor(async () => (await activeJobs(id)).length === 0, { timeout: 30_000, what: 'job ended' });
    // The wrapper was ended with its job: the pass that notices is cron's (here by hand).
    await sb.quiesce();
    const pass = await sb.run(['reconcile'], { env });
    expect(pass.exitCode, pass.stderr).toBe(0);
    const second = await sb.agentPid(id, 2, 30_000);
    expect(sb.calls().find((c) => c.pid === second)?.argv).toContain('--resume');
    await sb.run(['stop', id], { env });
    await nothingLeft(sb, id);
  });
});
