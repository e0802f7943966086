import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { execa } from 'execa';

import { cancel, jobsByName, listJobs, type SlurmContext } from '../../src/adapters/slurm.js';
import { isActive, type SlurmJob } from '../../src/core/slurm/jobs.js';
import { jobsOfRun } from '../../src/core/slurm/submit.js';
import { waitFor, type Sandbox } from './harness.js';

// The single-node cluster of scripts/slurm-up.sh, for tests. CI starts it and sets
// OVERNIGHT_TEST_SLURM_CONF: there a missing cluster fails the tests that need it, never skips them.
// Elsewhere those tests run when the variable is set. Every wait polls with a deadline.
//
// loseNode() kills slurmd: every job on the cluster is requeued. A test that calls it must not run
// beside other Slurm tests: keep such tests in one file (vitest runs a file's tests in order).

export const SLURM_CONF = process.env.OVERNIGHT_TEST_SLURM_CONF;
export const SLURM_WANTED = process.env.CI === 'true' || Boolean(SLURM_CONF);

/** Throws (in a beforeAll) when the cluster is not there: a test that needs it fails. */
export function requireCluster(): string {
  if (!SLURM_CONF || !existsSync(SLURM_CONF))
    throw new Error(
      'no Slurm cluster: set OVERNIGHT_TEST_SLURM_CONF to the slurm.conf that scripts/slurm-up.sh ' +
        'printed (CI must install slurm-wlm and munge and start it: .ci/run)',
    );
  return SLURM_CONF;
}

export function slurmCtx(extra: Record<string, string> = {}): SlurmContext {
  return {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME, SLURM_CONF, ...extra },
  };
}

export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The newest job of that name, once `ok` holds for it. */
export async function jobWhen(
  name: string,
  ok: (j: SlurmJob) => boolean,
  what: string,
  ms = 30_000,
): Promise<SlurmJob> {
  return until(
    `${name} ${what}`,
    async () => {
      const r = await jobsByName(name, slurmCtx());
      if ('error' in r) throw new Error(r.error);
      const job = r.jobs[0];
      return job && ok(job) ? job : null;
    },
    ms,
  );
}

const clusterDir = () => dirname(requireCluster());

/**
 * The cluster for one test file at a time (vitest runs files side by side): loseNode() requeues
 * every job on it, and a night's timings assume a node of its own. Held from beforeAll to afterAll.
 */
export async function holdCluster(ms = 900_000): Promise<() => Promise<void>> {
  const { default: lockfile } = await import('proper-lockfile');
  const lock = join(clusterDir(), 'tests.lock');
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await lockfile.lock(lock, { lockfilePath: lock, realpath: false, stale: 30_000 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function nodeState(): Promise<string> {
  const r = await execa('sinfo', ['-h', '-o', '%T'], { env: { SLURM_CONF }, timeout: 10_000, reject: false });
  return String(r.stdout).trim();
}

/**
 * Kills slurmd (kill -9) and waits until the controller finds the node not responding (`*`). It
 * requeues the node's jobs when it then sets the node down, about 30 s after the kill; the node
 * shows `down*`, or `mixed*` while a job's end is still unconfirmed.
 */
export async function loseNode(ms = 60_000): Promise<void> {
  const pid = Number(readFileSync(join(clusterDir(), 'run', 'slurmd.pid'), 'utf8').trim());
  if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'slurmd')
    throw new Error(`pid ${pid} is not slurmd`);
  process.kill(pid, 'SIGKILL');
  await until('node not responding', async () => (/\*$|^down/.test(await nodeState()) ? true : null), ms);
}

/** Whether slurmd (as its pid file says) runs. */
function slurmdRuns(): boolean {
  try {
    const pid = readFileSync(join(clusterDir(), 'run', 'slurmd.pid'), 'utf8').trim();
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'slurmd';
  } catch {
    return false;
  }
}

/** For afterEach: a test that failed with its node lost must not leave it so for the next. */
export async function nodeBack(): Promise<void> {
  if (!slurmdRuns()) await restoreNode();
  // A job started again while its first run was still on the node drains it ("Duplicate jobid").
  if (/^drain/.test(await nodeState())) {
    await execa('scontrol', ['update', `nodename=${hostname().split('.')[0]}`, 'state=resume'], {
      env: { SLURM_CONF },
      timeout: 10_000,
    });
    await until('node undrained', async () =>
      /^(idle|mixed|allocated)$/.test(await nodeState()) ? true : null,
    );
  }
}

/** Starts slurmd again and waits until the node takes jobs (ReturnToService=2 brings it back). */
export async function restoreNode(ms = 30_000): Promise<void> {
  await execa('slurmd', ['-N', hostname().split('.')[0] as string], {
    env: { SLURM_CONF, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    timeout: 10_000,
  });
  await until('node up', async () => (/^(idle|mixed|allocated)$/.test(await nodeState()) ? true : null), ms);
}

/**
 * A run name of this sandbox's own: a job's name is the cluster's, and two sandboxes launching in
 * the same minute would otherwise both have run `<date>-<time>-a-night-…` (squeue keeps ended jobs).
 */
export const uniqueName = (sb: Sandbox) => `t-${basename(sb.dir).slice(4).toLowerCase()}`;

/** Whole nights on the cluster, for one sandbox at a time: launch, the run's jobs, nothing left. */
export function slurmNights(env: () => Record<string, string>) {
  const uid = process.getuid?.() ?? null;
  const launched: string[] = [];

  const runJobs = async (id: string): Promise<SlurmJob[]> => {
    const listing = await listJobs(slurmCtx());
    if ('error' in listing) throw new Error(listing.error);
    return jobsOfRun(listing.jobs, id, uid);
  };
  const activeJobs = async (id: string) => (await runJobs(id)).filter((j) => isActive(j.state));

  return {
    runJobs,
    activeJobs,

    async launch(sb: Sandbox, duration: string, extra: Record<string, string> = {}): Promise<string> {
      const r = await sb.run(
        ['launch', '--duration', duration, '--name', uniqueName(sb), 'A night on a cluster'],
        {
          env: { ...env(), ...extra },
        },
      );
      if (r.exitCode !== 0) throw new Error(`launch failed (${r.exitCode}): ${r.stderr}`);
      if (!/^ {2}backend: {3}slurm/m.test(r.stdout)) throw new Error(`not on slurm: ${r.stdout}`);
      const id = (/^Launched (\S+)/m.exec(r.stdout) as RegExpExecArray)[1] as string;
      launched.push(id);
      return id;
    },

    /** Nothing of the run left: no job Slurm may still run, no process of the sandbox. */
    async nothingLeft(sb: Sandbox, id: string, ms = 30_000): Promise<void> {
      await waitFor(async () => (await activeJobs(id)).length === 0, { timeout: ms, what: 'no job' });
      await waitFor(() => sb.processes().length === 0, { timeout: ms, what: 'no process' });
    },

    /** For afterEach: cancels every job of the runs launched so far that may still run. */
    async cancelLeft(): Promise<void> {
      for (const id of launched.splice(0))
        for (const j of await activeJobs(id).catch(() => [])) await cancel(j.name, slurmCtx());
    },
  };
}
