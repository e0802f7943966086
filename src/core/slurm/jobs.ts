import { intIn, textOf, wordOf } from '../run/bounds.js';

// What Slurm says of jobs, parsed from `squeue --json -t all` (and `scontrol show job -o` in
// core/slurm/scontrol.ts) into plain values. The text comes from another program on a shared
// cluster: every field is checked (type, range, length), a malformed job is skipped alone, and the
// number of jobs read is bounded. Pure.

/** Slurm's base job states (squeue(1) JOB STATE CODES); anything else reads as UNKNOWN. */
export const SLURM_STATES = [
  'BOOT_FAIL',
  'CANCELLED',
  'COMPLETED',
  'COMPLETING',
  'CONFIGURING',
  'DEADLINE',
  'FAILED',
  'NODE_FAIL',
  'OUT_OF_MEMORY',
  'PENDING',
  'PREEMPTED',
  'REQUEUED',
  'REQUEUE_FED',
  'REQUEUE_HOLD',
  'RESIZING',
  'RESV_DEL_HOLD',
  'REVOKED',
  'RUNNING',
  'SIGNALING',
  'SPECIAL_EXIT',
  'STAGE_OUT',
  'STOPPED',
  'SUSPENDED',
  'TIMEOUT',
] as const;
export type SlurmState = (typeof SLURM_STATES)[number] | 'UNKNOWN';

/** States in which the job may still run (or runs): a second job of the same name must not start. */
const ACTIVE: ReadonlySet<SlurmState> = new Set<SlurmState>([
  'CONFIGURING',
  'COMPLETING',
  'PENDING',
  'REQUEUED',
  'REQUEUE_FED',
  'REQUEUE_HOLD',
  'RESIZING',
  'RESV_DEL_HOLD',
  'RUNNING',
  'SIGNALING',
  'SPECIAL_EXIT',
  'STAGE_OUT',
  'STOPPED',
  'SUSPENDED',
  // Not known: assume it may run (the guard errs towards never two agents).
  'UNKNOWN',
]);

export function isActive(state: SlurmState): boolean {
  return ACTIVE.has(state);
}

export interface SlurmExit {
  /** The batch script's exit code, when it exited. */
  code: number | null;
  /** The signal that ended it, when one did. */
  signal: number | null;
}

export interface SlurmJob {
  jobId: number;
  name: string;
  /** The owner's uid: on a shared cluster anyone may name a job `overnight-…`; only ours count. */
  userId: number | null;
  state: SlurmState;
  /** The node (list) it runs or ran on; null while pending. */
  node: string | null;
  exit: SlurmExit;
  /** How many times Slurm requeued it (node lost, `scontrol requeue`). */
  restartCount: number;
  /** Slurm's reason (`BeginTime`, `NonZeroExitCode`, …); null for `None`. */
  reason: string | null;
}

/** More jobs than one listing is read for; the rest is ignored (and said). */
export const JOBS_MAX = 50_000;
/** Slurm job ids are 32-bit; 0 is none. */
const JOB_ID_MAX = 0xffff_ffff;
const NAME_MAX = 1024;

export type Listing = { jobs: SlurmJob[]; skipped: number; truncated: boolean } | { error: string };

/** A number as squeue gives it: a plain number (22.05), or `{set, infinite, number}` (23.02 and later). */
export function numberOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (o.set === false || o.infinite === true) return null;
    return typeof o.number === 'number' && Number.isFinite(o.number) ? o.number : null;
  }
  return null;
}

export function stateOf(v: unknown): SlurmState {
  // 23.02 and later give a list (`["PENDING", "REQUEUED"]`): the first is the base state.
  const word = Array.isArray(v) ? v[0] : v;
  const s = wordOf(word, 32)?.toUpperCase();
  return s && (SLURM_STATES as readonly string[]).includes(s) ? (s as SlurmState) : 'UNKNOWN';
}

/** A wait status (22.05's `exit_code`: 768 is exit 3, 9 is SIGKILL) as code or signal. */
export function waitStatus(status: number): SlurmExit {
  if (!Number.isInteger(status) || status < 0 || status > 0xffff) return { code: null, signal: null };
  const signal = status & 0x7f;
  return signal !== 0 ? { code: null, signal } : { code: (status >> 8) & 0xff, signal: null };
}

/** `exit_code` in either shape: a wait status (22.05), or `{return_code, signal: {id}}` (later). */
export function exitOf(v: unknown): SlurmExit {
  const n = numberOf(v);
  if (n !== null) return waitStatus(n);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { code: null, signal: null };
  const o = v as Record<string, unknown>;
  const code = intIn(numberOf(o.return_code), 0, 255);
  const sig = o.signal && typeof o.signal === 'object' ? (o.signal as Record<string, unknown>).id : null;
  const signal = intIn(numberOf(sig), 1, 127);
  return signal !== null ? { code: null, signal } : { code, signal: null };
}

const NAME_CHARS = /^[\x21-\x7e]+$/;

/** One job of the listing, or null when a field that matters is missing or malformed. */
export function jobOf(raw: unknown): SlurmJob | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  const jobId = intIn(numberOf(o.job_id), 1, JOB_ID_MAX);
  const name = wordOf(o.name, NAME_MAX);
  if (jobId === null || name === null || !NAME_CHARS.test(name)) return null;
  const node = wordOf(o.nodes, NAME_MAX) || wordOf(o.batch_host, NAME_MAX) || null;
  const reason = textOf(o.state_reason, 256);
  return {
    jobId,
    name,
    userId: intIn(numberOf(o.user_id), 0, 0xffff_ffff),
    state: stateOf(o.job_state),
    node,
    exit: exitOf(o.exit_code),
    restartCount: intIn(numberOf(o.restart_cnt), 0, 1_000_000) ?? 0,
    reason: reason && reason !== 'None' ? reason : null,
  };
}

/** `squeue --json` output (already parsed JSON): its jobs, malformed ones skipped. */
export function parseSqueueJson(data: unknown): Listing {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { error: 'not a JSON object' };
  const o = data as Record<string, unknown>;
  if (Array.isArray(o.errors) && o.errors.length > 0 && !Array.isArray(o.jobs)) {
    const first = o.errors[0] as Record<string, unknown> | undefined;
    return { error: `squeue said: ${textOf(first?.error ?? first?.description, 200) ?? 'an error'}` };
  }
  if (!Array.isArray(o.jobs)) return { error: 'no "jobs" list' };
  const list = o.jobs.slice(0, JOBS_MAX);
  const jobs = list.map(jobOf).filter((j): j is SlurmJob => j !== null);
  return { jobs, skipped: list.length - jobs.length, truncated: o.jobs.length > JOBS_MAX };
}

/**
 * The jobs named exactly `name`, or (with `prefix`) whose name starts with it, owned by `uid` (when
 * both are known: anyone on a cluster may name a job `overnight-…`); newest first.
 */
export function jobsNamed(
  jobs: readonly SlurmJob[],
  name: string,
  opts: { prefix?: boolean; uid?: number | null } = {},
): SlurmJob[] {
  const uid = opts.uid ?? null;
  return jobs
    .filter((j) => (opts.prefix ? j.name.startsWith(name) : j.name === name))
    .filter((j) => uid === null || j.userId === null || j.userId === uid)
    .sort((a, b) => b.jobId - a.jobId);
}
