import { join } from 'node:path';

import type { RunPaths } from '../../core/run/paths.js';
import type { RunSpec, SessionRecord } from '../../core/run/types.js';
import { isActive } from '../../core/slurm/jobs.js';
import { jobOutcome } from '../../core/slurm/outcome.js';
import { jobName, jobsOfRun, timeLimitMinutes } from '../../core/slurm/submit.js';
import { viewsByName, type JobView } from '../../core/slurm/view.js';
import { loadSettings } from '../config-file.js';
import { readText } from '../files.js';
import type { StopGrace } from '../processes.js';
import { cancel, jobsByName, listJobs, submit, writeBatchScript, type SlurmContext } from '../slurm.js';
import { readAgent, readSession } from '../store.js';
import type { Backend, SessionRef, SessionView } from './types.js';

// slurm: each session is a batch job `overnight-<run>-<session>` on any node of the cluster; the
// runs root is on a filesystem the nodes and the passes share. A pass lists the cluster's jobs once
// (squeue --json, through the adapter with its deadline) and finds each session's job by name. The
// agent's pid is per node: whether it lives is read from the wrapper's records (agent-N.pid, and no
// agent-N.exit yet) and the job's state, never from this machine's /proc.

const GONE: SessionView = { alive: false, where: null };
/** Overnight's own deadlines (the synthesis budget, stop_grace) act first; Slurm's limit is the backstop. */
const LIMIT_MARGIN_S = 60;
const POLL_MS = 100;
/** How often an interrupt asks Slurm whether the job is still there, while it waits for the exit record. */
const LIST_EVERY_MS = 2_000;

type Timing = Pick<RunSpec, 'id' | 'endsAt' | 'limits'>;

/** What Slurm's commands get: the pass's environment without the SLURM_* of a job it may run in. */
export function slurmEnv(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env))
    // A pass inside a job (the wrapper's) must not hand its job's ids or restart count to the next.
    if (!k.startsWith('SLURM_') || k === 'SLURM_CONF') out[k] = v;
  return out;
}

const active = (v: JobView | undefined) =>
  v !== undefined && v.outcome.kind !== 'ended-by-slurm' && v.outcome.kind !== 'exited';

export class SlurmBackend implements Backend {
  readonly name = 'slurm' as const;
  readonly listKey = 'slurm';
  readonly remote = true;
  private readonly ctx: SlurmContext;

  /** `spec`: null for a run whose run.yaml cannot be read (it can be observed and stopped, not started). */
  constructor(
    private readonly spec: Timing | null,
    private readonly paths: RunPaths,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.ctx = { env: slurmEnv(env) };
  }

  private session(): SessionRecord | null {
    try {
      return readSession(this.paths);
    } catch {
      return null; // corrupt: no session to name
    }
  }

  /** The current session's job name (the backend is built for one run). */
  sessionName(id: string): string {
    return jobName(id, this.session()?.n ?? 1);
  }

  async start(ref: SessionRef, cwd: string, argv: string[]): Promise<void> {
    const session = this.session();
    if (!this.spec || !session)
      throw new Error(`run ${ref.id} has no session record to start as a Slurm job`);
    const name = jobName(ref.id, session.n);
    // The duplicate guard's Slurm half: never a second job of a session while one may run.
    const listing = await listJobs(this.ctx);
    if ('error' in listing) throw new Error(`cannot ask Slurm before starting ${name}: ${listing.error}`);
    const uid = process.getuid?.() ?? null;
    const same = jobsOfRun(listing.jobs, ref.id, uid).find((j) => j.name === name && isActive(j.state));
    if (same)
      throw new Error(`${name} is already Slurm job ${same.jobId} (${same.state}); not submitting a second`);
    const { settings } = await loadSettings({}, this.ctx.env);
    const script = join(ref.paths.state, 'slurm-batch.sh');
    writeBatchScript(script);
    const until = session.deadline ?? this.spec.endsAt;
    const budget = session.deadline ? 0 : this.spec.limits.synthesisBudget;
    const r = await submit(
      {
        name,
        cwd,
        minutes: timeLimitMinutes(new Date(), until, budget + this.spec.limits.stopGrace + LIMIT_MARGIN_S),
        output: ref.paths.wrapperLog,
        script,
        args: argv,
        slurm: settings.slurm,
      },
      this.ctx,
    );
    if ('error' in r)
      throw new Error(`Slurm refused ${name}: ${r.error}; check slurm: in config.yaml (overnight doctor)`);
  }

  async observe(ref: SessionRef): Promise<SessionView> {
    return (await this.list()).get(this.sessionName(ref.id)) ?? GONE;
  }

  /** Every overnight job of this user Slurm still knows, by job name; throws when Slurm does not answer. */
  async list(): Promise<Map<string, SessionView>> {
    const listing = await listJobs(this.ctx);
    if ('error' in listing) throw new Error(`cannot list Slurm jobs: ${listing.error}`);
    const views = new Map<string, SessionView>();
    for (const [name, job] of viewsByName(listing.jobs, process.getuid?.() ?? null)) {
      const alive = active(job);
      const exit = job.outcome.kind === 'exited' ? job.outcome.code : null;
      views.set(name, { alive, where: alive ? job.node : null, exit, job });
    }
    return views;
  }

  /**
   * SIGINT to the agent through Slurm, then SIGTERM, then the job ended, each after its grace.
   * `scancel --signal=INT --full`: on 22.05 `--batch` signals the batch shell alone (here the
   * wrapper, which ignores SIGINT, so the agent would never hear it), while `--full` signals every
   * process of the batch step, the agent's process group included (tested on a real cluster in
   * test/integration/slurm-adapter.test.ts). Without either, only job steps (srun) are signalled.
   */
  async interrupt(
    ref: SessionRef,
    session: SessionRecord,
    grace: StopGrace,
  ): Promise<'gone' | NodeJS.Signals> {
    const exitFile = ref.paths.exitFile(session.n);
    if (!readAgent(ref.paths, session) || readText(exitFile) !== null) return 'gone';
    const name = jobName(ref.id, session.n);
    const ended = async (ms: number) => {
      const deadline = Date.now() + ms;
      for (let last = 0; Date.now() < deadline; await new Promise((r) => setTimeout(r, POLL_MS))) {
        if (readText(exitFile) !== null) return true;
        if (Date.now() - last >= LIST_EVERY_MS) {
          last = Date.now();
          const r = await jobsByName(name, this.ctx);
          const job = 'jobs' in r ? r.jobs[0] : undefined;
          if ('jobs' in r && (!job || !isActive(job.state))) return true;
        }
      }
      return false;
    };
    if (!(await this.runs(name))) return 'gone';
    for (const [signal, ms] of [
      ['INT', grace.interruptMs],
      ['TERM', grace.terminateMs],
    ] as const) {
      const r = await cancel(name, this.ctx, { signal, to: 'job' });
      if ('error' in r) throw new Error(`cannot signal ${name} (SIG${signal}): ${r.error}`);
      if (await ended(ms)) return `SIG${signal}`;
    }
    const r = await cancel(name, this.ctx);
    if ('error' in r) throw new Error(`cannot cancel ${name}: ${r.error}`);
    await ended(2_000);
    return 'SIGKILL';
  }

  private async runs(name: string): Promise<boolean> {
    const r = await jobsByName(name, this.ctx);
    if ('error' in r) throw new Error(`cannot ask Slurm about ${name}: ${r.error}`);
    const job = r.jobs[0];
    return job !== undefined && jobOutcome(job).kind === 'running';
  }

  /**
   * Cancels every job of the run Slurm may still run (pending, requeued, running): Slurm ends all
   * their processes, on whichever node. The job this pass runs in (the wrapper's exit-triggered pass)
   * is left to end by itself a moment later: cancelling it would end this pass too.
   */
  async stop(ref: SessionRef): Promise<void> {
    const listing = await listJobs(this.ctx);
    if ('error' in listing) throw new Error(`cannot list Slurm jobs to stop ${ref.id}: ${listing.error}`);
    const own = process.env.SLURM_JOB_ID;
    const names = new Set(
      jobsOfRun(listing.jobs, ref.id, process.getuid?.() ?? null)
        .filter((j) => isActive(j.state) && String(j.jobId) !== own)
        .map((j) => j.name),
    );
    for (const name of names) {
      const r = await cancel(name, this.ctx);
      if ('error' in r) throw new Error(`cannot cancel ${name}: ${r.error}`);
    }
  }
}
