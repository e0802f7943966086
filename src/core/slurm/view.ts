import { jobsNamed, type SlurmJob } from './jobs.js';
import { jobOutcome, type JobOutcome } from './outcome.js';
import { parseJobName } from './submit.js';

// A pass's view of the run sessions' jobs, from one listing: by job name (never by id alone: a
// controller that lost a job may give its id to another). Pure.

/** What `status` and a pass see of a session's job. */
export interface JobView {
  jobId: number;
  /** The session the job runs (from its name). */
  session: number;
  /** Slurm's state word (RUNNING, PENDING, TIMEOUT, …). */
  state: string;
  node: string | null;
  /** How many times Slurm requeued it. */
  restarts: number;
  outcome: JobOutcome;
}

export function jobView(job: SlurmJob, session: number): JobView {
  return {
    jobId: job.jobId,
    session,
    state: job.state,
    node: job.node,
    restarts: job.restartCount,
    outcome: jobOutcome(job),
  };
}

/**
 * overnight's jobs of this user, newest first per name: name → the newest job of that name (a name
 * is submitted again only once its earlier job ended, so the newest says what runs).
 */
export function viewsByName(jobs: readonly SlurmJob[], uid: number | null): Map<string, JobView> {
  const views = new Map<string, JobView>();
  for (const job of jobsNamed(jobs, 'overnight-', { prefix: true, uid })) {
    const parsed = parseJobName(job.name);
    if (parsed && !views.has(job.name)) views.set(job.name, jobView(job, parsed.session));
  }
  return views;
}

/** The agent of a session whose job Slurm shows running (its records say whether it still lives). */
export function jobRuns(view: JobView | undefined): boolean {
  return view?.outcome.kind === 'running';
}

/** Why Slurm ended a job that did not end by itself, or null. */
export function endedBy(
  view: JobView | undefined,
): 'time-limit' | 'cancelled' | 'node-failure' | 'out-of-memory' | 'other' | null {
  return view?.outcome.kind === 'ended-by-slurm' ? view.outcome.why : null;
}
