import { isActive, type SlurmJob } from './jobs.js';
import { jobsOfRun } from './submit.js';

// What Slurm's view of a session's job means for a pass, in closed words: the backend seam turns
// these into its Observation. The wrapper's own records (the agent's pid and exit) remain the truth
// of how the agent ended; these say what Slurm did to the job around it. Pure.

export type JobOutcome =
  /** Waiting to run; `held` when requeued and held (BeginTime) or held by a person. */
  | { kind: 'pending'; held: boolean }
  | { kind: 'running'; node: string | null }
  /** The batch script (the wrapper) exited by itself: its code, or the signal that ended it. */
  | { kind: 'exited'; code: number | null; signal: number | null }
  /** Slurm ended it: its time limit, a cancel (overnight's or anyone's), the node, memory, … */
  | { kind: 'ended-by-slurm'; why: 'time-limit' | 'cancelled' | 'node-failure' | 'out-of-memory' | 'other' }
  /** A state overnight does not know: never taken for an ended job. */
  | { kind: 'unknown'; state: string };

export function jobOutcome(job: SlurmJob): JobOutcome {
  switch (job.state) {
    case 'PENDING':
    case 'REQUEUED':
    case 'REQUEUE_HOLD':
    case 'REQUEUE_FED':
    case 'RESV_DEL_HOLD':
    case 'CONFIGURING':
      return {
        kind: 'pending',
        held: job.state === 'REQUEUE_HOLD' || /^(BeginTime|JobHeld)/.test(job.reason ?? ''),
      };
    case 'RUNNING':
    case 'COMPLETING':
    case 'SIGNALING':
    case 'STAGE_OUT':
    case 'SUSPENDED':
    case 'STOPPED':
    case 'RESIZING':
    case 'SPECIAL_EXIT':
      return { kind: 'running', node: job.node };
    case 'COMPLETED':
    case 'FAILED':
      return { kind: 'exited', ...job.exit };
    case 'TIMEOUT':
    case 'DEADLINE':
      return { kind: 'ended-by-slurm', why: 'time-limit' };
    case 'CANCELLED':
    case 'REVOKED':
      return { kind: 'ended-by-slurm', why: 'cancelled' };
    case 'NODE_FAIL':
    case 'BOOT_FAIL':
      return { kind: 'ended-by-slurm', why: 'node-failure' };
    case 'OUT_OF_MEMORY':
      return { kind: 'ended-by-slurm', why: 'out-of-memory' };
    case 'PREEMPTED':
      return { kind: 'ended-by-slurm', why: 'other' };
    default:
      return { kind: 'unknown', state: job.state };
  }
}

/**
 * The duplicate guard's half that Slurm holds: the run's jobs that may still run (pending, running,
 * requeued, or in a state not known). A session is submitted only when this is empty; pid identity
 * is per node, so no pass may look for the agent in its own process table instead.
 */
export function activeJobsOfRun(jobs: readonly SlurmJob[], runId: string, uid: number | null): SlurmJob[] {
  return jobsOfRun(jobs, runId, uid).filter((j) => isActive(j.state));
}
