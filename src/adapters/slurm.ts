import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';

import { DEFAULT_SLURM_CONF, type SlurmConf } from '../core/slurm/cluster.js';
import { jobsNamed, parseSqueueJson, type Listing, type SlurmJob } from '../core/slurm/jobs.js';
import { parseScontrolJobs } from '../core/slurm/scontrol.js';
import { BATCH_SCRIPT, parseSbatchOutput, sbatchArgs, type Submission } from '../core/slurm/submit.js';
import { runBounded } from './command.js';

// The Slurm commands overnight runs: sbatch, squeue (scontrol as the fallback), scancel. Each runs
// without a shell, in the environment given, with a deadline for its whole process group and a cap
// on its output. Slurm's answers are parsed and validated in core/slurm.

type Env = Record<string, string | undefined>;

export interface SlurmContext {
  env: Env;
  /** Deadline of one command (a controller that does not answer must not hold a pass). */
  timeoutMs?: number;
}

const TIMEOUT_MS = 20_000;
/** `squeue --json -t all` lists every job of the cluster (22.05 ignores --me and -n with --json). */
const LISTING_MAX_BYTES = 64 * 1024 * 1024;

type Ran = { exitCode: number; stdout: string; stderr: string } | { error: string };

async function run(file: string, args: string[], ctx: SlurmContext, maxBuffer = 1024 * 1024): Promise<Ran> {
  const timeoutMs = ctx.timeoutMs ?? TIMEOUT_MS;
  const r = await runBounded(file, args, { env: ctx.env, timeoutMs, maxBuffer });
  if ('thrown' in r) return { error: `${file}: ${r.thrown}` };
  if (r.timedOut) return { error: `${file}: no answer within ${timeoutMs / 1000} s` };
  if (r.code === 'ENOENT') return { error: `${file}: not found (is Slurm installed here?)` };
  if (r.isMaxBuffer) return { error: `${file}: more than ${maxBuffer} bytes of output` };
  if (r.exitCode === undefined)
    return { error: `${file}: ${r.signal ? `killed by ${r.signal}` : r.shortMessage}` };
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const said = (r: { exitCode: number; stderr: string; stdout: string }, file: string) =>
  `${file} exited ${r.exitCode}: ${(r.stderr.trim() || r.stdout.trim()).split('\n')[0]?.slice(0, 300) ?? ''}`;

/** slurm.conf where Slurm's commands look for it. */
export function slurmConf(env: Env): SlurmConf {
  const path = env.SLURM_CONF || DEFAULT_SLURM_CONF;
  return { path, exists: existsSync(path), fromEnv: !!env.SLURM_CONF };
}

/** Why no Slurm controller answers (`scontrol ping`), in Slurm's words; null when one does. */
export async function controllerProblem(ctx: SlurmContext): Promise<string | null> {
  const r = await run('scontrol', ['ping'], { ...ctx, timeoutMs: ctx.timeoutMs ?? 10_000 });
  if ('error' in r) return r.error;
  return / is UP\b/.test(r.stdout) ? null : said(r, 'scontrol ping');
}

/** Writes the batch script (it only execs its arguments) at `path`, atomically, mode 0700. */
export function writeBatchScript(path: string): void {
  const partial = `${path}.tmp.${process.pid}`;
  writeFileSync(partial, BATCH_SCRIPT, { mode: 0o700 });
  chmodSync(partial, 0o700);
  renameSync(partial, path);
}

/**
 * Submits one session. The caller has checked that no job of this name is active (the duplicate
 * guard): sbatch itself would happily start a second one.
 */
export async function submit(
  s: Submission,
  ctx: SlurmContext,
): Promise<{ jobId: number } | { error: string }> {
  const r = await run('sbatch', sbatchArgs(s), ctx);
  if ('error' in r) return r;
  if (r.exitCode !== 0) return { error: said(r, 'sbatch') };
  const jobId = parseSbatchOutput(r.stdout);
  return jobId === null ? { error: `sbatch printed no job id: ${r.stdout.slice(0, 100)}` } : { jobId };
}

/** Every job Slurm still knows (pending, running, and finished within MinJobAge). */
export async function listJobs(ctx: SlurmContext): Promise<Listing> {
  const r = await run('squeue', ['--json', '--states=all'], ctx, LISTING_MAX_BYTES);
  if (!('error' in r) && r.exitCode === 0) {
    try {
      return parseSqueueJson(JSON.parse(r.stdout));
    } catch (err) {
      return { error: `squeue --json printed no JSON (${(err as Error).message.slice(0, 100)})` };
    }
  }
  // A Slurm built without its JSON plugin: the same facts from scontrol, one job a line.
  const s = await run('scontrol', ['show', 'job', '--oneliner'], ctx, LISTING_MAX_BYTES);
  if ('error' in s) return 'error' in r ? r : { error: `${said(r, 'squeue')}; ${s.error}` };
  if (s.exitCode !== 0) return { error: said(s, 'scontrol') };
  return parseScontrolJobs(s.stdout);
}

/** This user's jobs whose name is `name` (or starts with it, with `prefix`), newest first. */
export async function jobsByName(
  name: string,
  ctx: SlurmContext,
  prefix = false,
): Promise<{ jobs: SlurmJob[] } | { error: string }> {
  const listing = await listJobs(ctx);
  if ('error' in listing) return listing;
  return { jobs: jobsNamed(listing.jobs, name, { prefix, uid: process.getuid?.() ?? null }) };
}

export interface CancelOptions {
  /** A signal to send instead of ending the job (e.g. INT for the synthesis). */
  signal?: 'INT' | 'TERM' | 'HUP' | 'USR1' | 'USR2';
  /**
   * Who gets the signal. `job` (the default with a signal: `--full`): the batch script and every
   * process it started, so the agent gets SIGINT while the wrapper, which ignores it, waits for it.
   * `batch` (`--batch`): the batch script alone. Without either, Slurm signals only job steps
   * (srun), which a session has none of: the signal would reach nobody.
   */
  to?: 'job' | 'batch';
}

/** Ends (or signals) this user's jobs named `name`. No such job is not an error. */
export async function cancel(
  name: string,
  ctx: SlurmContext,
  opts: CancelOptions = {},
): Promise<{ ok: true } | { error: string }> {
  // Only ours: as root, scancel --name would end other users' jobs of that name too.
  const args = [`--name=${name}`, `--user=${process.getuid?.() ?? userInfo().username}`];
  if (opts.signal) args.push(`--signal=${opts.signal}`, opts.to === 'batch' ? '--batch' : '--full');
  const r = await run('scancel', args, ctx);
  if ('error' in r) return r;
  return r.exitCode === 0 ? { ok: true } : { error: said(r, 'scancel') };
}
