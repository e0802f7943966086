import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { SlurmSettings } from '../core/config/slurm.js';
import { mungeSocketOf, SLURM_COMMANDS, type SlurmFacts, type TestJobFacts } from '../core/doctor/slurm.js';
import { isActive } from '../core/slurm/jobs.js';
import { runBriefly } from './doctor-facts.js';
import { cancel, jobsByName, slurmConf, submit, writeBatchScript } from './slurm.js';
import { resolveExecutable } from './which.js';

// The facts doctor judges for the Slurm backend (core/doctor/slurm): the commands and their
// version, the controller, munge, and, when the backend is chosen, a tiny test job that reads a
// token this machine wrote in the runs root and writes it back with the node's name.

type Env = Record<string, string | undefined>;

const MUNGE_KEY = '/etc/munge/munge.key';
/** How long the test job may take, queueing included, before doctor gives up on it (and cancels it). */
const TEST_JOB_WAIT_MS = 30_000;
/** The test job's own command: a constant, its paths come as arguments. */
const ANSWER = 'cat "$1" > "$2.tmp" && hostname >> "$2.tmp" && mv "$2.tmp" "$2"';

function slurmConfText(env: Env): string {
  try {
    return readFileSync(env.SLURM_CONF || '/etc/slurm/slurm.conf', 'utf8').slice(0, 1024 * 1024);
  } catch {
    return '';
  }
}

/** Whether the key exists: null when its directory is not ours to look into (munged's, 0700). */
function keyExists(path: string): boolean | null {
  try {
    statSync(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? false : null;
  }
}

export async function slurmFacts(
  env: Env,
  opts: { wanted: boolean; root: string; slurm: SlurmSettings },
): Promise<SlurmFacts> {
  const path = env.PATH ?? '';
  const commands = SLURM_COMMANDS.map((name) => ({ name, resolved: resolveExecutable(name, path) }));
  const facts: SlurmFacts = { wanted: opts.wanted, commands };
  if (!opts.wanted || commands.some((c) => !c.resolved)) return facts;
  facts.conf = slurmConf(env);
  const socket = mungeSocketOf(slurmConfText(env));
  const munge = resolveExecutable('munge', `${path}:/usr/bin:/bin`);
  const [version, ping, credential] = await Promise.all([
    runBriefly(commands[0]?.resolved as string, ['--version'], env),
    runBriefly('scontrol', ['ping'], env),
    munge
      ? runBriefly(munge, socket ? [`--socket=${socket}`, '-n'] : ['-n'], env)
      : Promise.resolve({ exitCode: null, stdout: '', stderr: '', error: 'munge not found' }),
  ]);
  Object.assign(facts, { version, ping });
  facts.munge = { key: MUNGE_KEY, keyExists: keyExists(MUNGE_KEY), credential };
  facts.testJob = await testJob(env, opts.root, opts.slurm);
  return facts;
}

/** Submits the test job, waits for its answer (or its end, or the deadline), cleans up. */
export async function testJob(
  env: Env,
  root: string,
  slurm: SlurmSettings,
  waitMs = TEST_JOB_WAIT_MS,
): Promise<TestJobFacts> {
  const token = randomBytes(12).toString('hex');
  const facts: TestJobFacts = {
    root,
    submitted: { error: 'not submitted' },
    answer: null,
    token,
    state: null,
    node: null,
    waitedSeconds: 0,
  };
  let dir: string;
  try {
    dir = mkdtempSync(join(root, '.overnight-doctor-'));
    writeFileSync(join(dir, 'probe'), `${token}\n`, { mode: 0o600 });
    writeBatchScript(join(dir, 'batch.sh'));
  } catch (err) {
    facts.submitted = { error: `cannot write in ${root}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
    return facts;
  }
  // A name no run's job can have (core/slurm/submit: runs' names end in -<session>).
  const name = `overnight.doctor.${process.pid}.${token.slice(0, 6)}`;
  const ctx = { env };
  const t0 = Date.now();
  try {
    facts.submitted = await submit(
      {
        name,
        cwd: dir,
        minutes: 1,
        output: join(dir, 'job.log'),
        script: join(dir, 'batch.sh'),
        args: ['/bin/sh', '-c', ANSWER, 'sh', join(dir, 'probe'), join(dir, 'answer')],
        slurm,
      },
      ctx,
    );
    if ('error' in facts.submitted) return facts;
    for (;;) {
      facts.answer = readAnswer(join(dir, 'answer'));
      const seen = await jobsByName(name, ctx);
      const job = 'jobs' in seen ? seen.jobs[0] : undefined;
      if (job) [facts.state, facts.node] = [job.state, job.node];
      if (facts.answer !== null || (job && !isActive(job.state)) || Date.now() - t0 > waitMs) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    facts.answer ??= readAnswer(join(dir, 'answer'));
    return facts;
  } finally {
    facts.waitedSeconds = Math.round((Date.now() - t0) / 100) / 10;
    await cancel(name, ctx).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

function readAnswer(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').slice(0, 4096);
  } catch {
    return null;
  }
}
