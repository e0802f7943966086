import type { SlurmSettings } from '../config/slurm.js';
import { SESSION_MAX } from '../run/bounds.js';
import type { SlurmJob } from './jobs.js';

// Naming a session's job and building its `sbatch` argv: no shell anywhere, every value one argv
// word. Pure.

const PREFIX = 'overnight-';

/**
 * The job of a run's session: `overnight-<run id>-<session>`. Letters beyond ASCII are spelled
 * `_<hex>_` (as tmux names are): a job name is read back by other tools in other locales.
 */
export function jobName(runId: string, session: number): string {
  const ascii = runId.replace(/\P{ASCII}/gu, (c) => `_${(c.codePointAt(0) as number).toString(16)}_`);
  return `${PREFIX}${ascii}-${session}`;
}

/**
 * The run and session a job name stands for, or null. A run id may end in digits (`…-survey-2`), so
 * the session is the last dash's number: `overnight-…-survey-2-3` is run `…-survey-2`, session 3.
 */
export function parseJobName(name: string): { run: string; session: number } | null {
  const m = /^overnight-(.+)-(\d{1,5})$/.exec(name);
  if (!m) return null;
  const session = Number(m[2]);
  if (session < 1 || session > SESSION_MAX) return null;
  const run = (m[1] as string).replace(/_([0-9a-f]{2,6})_/g, (_s, hex: string) =>
    String.fromCodePoint(parseInt(hex, 16)),
  );
  return { run, session };
}

/** A run's jobs (all its sessions), owned by `uid` when known; newest first. */
export function jobsOfRun(jobs: readonly SlurmJob[], runId: string, uid: number | null): SlurmJob[] {
  return jobs
    .filter(
      (j) => (uid === null || j.userId === null || j.userId === uid) && parseJobName(j.name)?.run === runId,
    )
    .sort((a, b) => b.jobId - a.jobId);
}

/** Whole minutes from `now` to the end time plus the synthesis budget; at least 1. */
export function timeLimitMinutes(now: Date, endsAt: Date, synthesisBudgetSeconds: number): number {
  const seconds = (endsAt.getTime() - now.getTime()) / 1000 + synthesisBudgetSeconds;
  return Math.max(1, Math.ceil(seconds / 60));
}

export interface Submission {
  name: string;
  /** The working directory of the job (the run's). */
  cwd: string;
  minutes: number;
  /** Where Slurm writes the batch script's own output (appended: a requeue must not truncate it). */
  output: string;
  /** The batch script; its arguments follow it (sbatch passes them to the script as $1 …). */
  script: string;
  args: readonly string[];
  slurm: SlurmSettings;
}

/** The argv of `sbatch` for one session. */
export function sbatchArgs(s: Submission): string[] {
  const argv = [
    '--parsable',
    `--job-name=${s.name}`,
    '--requeue',
    `--chdir=${s.cwd}`,
    `--time=${s.minutes}`,
    `--output=${s.output}`,
    '--open-mode=append',
  ];
  if (s.slurm.partition) argv.push(`--partition=${s.slurm.partition}`);
  if (s.slurm.account) argv.push(`--account=${s.slurm.account}`);
  if (s.slurm.mem) argv.push(`--mem=${s.slurm.mem}`);
  if (s.slurm.cpus !== null) argv.push(`--cpus-per-task=${s.slurm.cpus}`);
  argv.push(...s.slurm.extra, s.script, ...s.args);
  return argv;
}

/**
 * The batch script: it only execs its arguments (the wrapper and the wrapper's), so nothing is
 * ever quoted into a shell string, and the wrapper keeps its own path as $0.
 */
export const BATCH_SCRIPT = '#!/bin/sh\n# Written by overnight: a session as a Slurm batch job.\nexec "$@"\n';

/** `sbatch --parsable` prints `<job id>` or `<job id>;<cluster>`. */
export function parseSbatchOutput(stdout: string): number | null {
  const m = /^(\d{1,10})(;[\w.-]{1,64})?\s*$/.exec(stdout.trim());
  const id = m ? Number(m[1]) : NaN;
  return id >= 1 && id <= 0xffff_ffff ? id : null;
}
