import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';

import { alive } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import {
  holdCluster,
  jobWhen,
  loseNode,
  nodeBack,
  requireCluster,
  restoreNode,
  SLURM_CONF,
  SLURM_WANTED,
  slurmNights,
} from '../helpers/slurm.js';

// The node lost for real: slurmd killed (kill -9), so the controller stops hearing from it, sets it
// down after SlurmdTimeout and requeues its jobs; slurmd started again brings it back
// (ReturnToService=2). On this single-node cluster the "lost" node's processes still run meanwhile
// (slurmstepd outlives slurmd): Slurm ends them when the node registers again, as it would on a
// node that comes back after a network split. The cluster's timeouts are short (scripts/slurm-up.sh).

describe.runIf(SLURM_WANTED)('slurm: a node lost', () => {
  let env: Record<string, string> = {};
  const { launch, runJobs, nothingLeft, cancelLeft } = slurmNights(() => env);
  let release: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    requireCluster();
    env = { OVERNIGHT_BACKEND: 'slurm', SLURM_CONF: SLURM_CONF as string };
    release = await holdCluster();
  }, 960_000);

  afterAll(async () => {
    await release?.();
  });

  afterEach(async () => {
    await nodeBack();
    await cancelLeft();
  });

  it('slurmd killed: the job is requeued, runs again, and the conversation resumes in a new job, counted once', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 300 }, { work: 300 }, { work: 300 }]);
    const id = await launch(sb, '10m', { FAKE_CLAUDE_EXCLUSIVE: '1' });
    const first = await sb.agentPid(id, 1, 30_000);
    const [job] = await runJobs(id);
    const jobId = job?.jobId as number;

    await loseNode();
    await jobWhen(`overnight-${id}-1`, (j) => j.jobId === jobId && j.restartCount >= 1, 'requeued', 60_000);
    await restoreNode();

    // The job runs again (SLURM_RESTART_COUNT=1): it starts no agent, records the lost one's end,
    // and its pass resumes the conversation as session 2, in a job of its own.
    const second = await sb.agentPid(id, 2, 90_000);
    expect(sb.read(sb.state(id, 'output.log'))).toMatch(/restart 1\): session 1 already started its agent/);
    expect(sb.read(sb.state(id, 'agent-1.exit'))).toMatch(/^137 1 /);
    expect(sb.calls().find((c) => c.pid === second)?.argv).toContain('--resume');
    // One agent at a time: the first had ended (Slurm ended it when the node came back) before the
    // second started (the fake records a live agent of the run found at its start); no third.
    expect(alive(first)).toBe(false);
    expect(sb.read(join(sb.logDir, 'duplicates.jsonl'))).toBeNull();
    expect(sb.calls().map((c) => c.pid)).toEqual([first, second]);
    expect((await runJobs(id)).map((j) => j.name).sort()).toEqual([`overnight-${id}-1`, `overnight-${id}-2`]);
    const [row] = await sb.status<{ restarts: number }>([id], { env });
    expect(row?.restarts).toBe(1);

    await sb.run(['stop', id], { env });
    await nothingLeft(sb, id);
  }, 240_000);

  it('stop while the node is lost and the job requeued: the job is cancelled, and what ran on the node ends when it returns', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 300 }, { work: 300 }]);
    const id = await launch(sb, '10m');
    const first = await sb.agentPid(id, 1, 30_000);
    const [job] = await runJobs(id);
    const jobId = job?.jobId as number;
    const name = `overnight-${id}-1`;

    await loseNode();
    await jobWhen(
      name,
      (j) => j.jobId === jobId && j.restartCount >= 1 && j.state === 'PENDING',
      'requeued',
      60_000,
    );
    const stop = await sb.run(['stop', id], { env });
    expect(stop.exitCode, stop.stderr).toBe(0);
    expect(sb.read(sb.ws(id, 'DONE'))).toMatch(/stopped/i);
    // Slurm will not run it again: cancelled while it waited.
    await jobWhen(name, (j) => j.jobId === jobId && j.state === 'CANCELLED', 'cancelled');

    // The node comes back: Slurm ends the job's first run, still there on it; nothing starts.
    await restoreNode();
    await nothingLeft(sb, id, 60_000);
    expect(alive(first)).toBe(false);
    expect(sb.calls().map((c) => c.pid)).toEqual([first]);
    expect((await runJobs(id)).map((j) => j.name)).toEqual([name]);
  }, 180_000);
});
