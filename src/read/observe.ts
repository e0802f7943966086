import { dirname } from 'node:path';

import { backendOf, type SessionView } from '../adapters/backend/index.js';
import { observeChecks } from '../adapters/check.js';
import { exists, mtime } from '../adapters/files.js';
import { isAlive } from '../adapters/processes.js';
import { observeReview } from '../adapters/review.js';
import {
  readAgent,
  readExitRecord,
  readRestarts,
  readSentinel,
  readSession,
  readSessionLogs,
  readSpec,
  readStaleSince,
  readTail,
  readWrapper,
} from '../adapters/store.js';
import { transcriptSize } from '../adapters/transcript.js';
import type { SessionLog } from '../core/agent/stream.js';
import { agentCwd, rootPaths, type RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionRecord } from '../core/run/types.js';
import { endedBy, jobRuns, type JobView } from '../core/slurm/view.js';
import { waitingPrompt } from '../core/supervise/classify.js';
import { endOfSession, overageOf } from '../core/supervise/session-end.js';
import type { AgentNotRunning, Observation, RunningAgent } from '../core/supervise/types.js';
import { viewOf, type ReadContext } from './context.js';

// Observe: one run's files and processes read into the plain Observation that decide judges.
// Reading only; every judgement is in core.

/** Output quiet this long (or stale_after, if shorter) is looked at for a prompt. */
const PROMPT_QUIET_S = 10;
/** How much of a quiet agent's output is read for a prompt. */
const PROMPT_TAIL_BYTES = 4096;

/** `logs`: the run's sessions, when the caller reads them too (status): the log is read once. */
export async function observeRun(
  paths: RunPaths,
  ctx: ReadContext,
  now: Date,
  logs?: () => SessionLog[],
): Promise<{ spec: RunSpec; obs: Observation }> {
  const spec = await readSpec(paths);
  const view = () => viewOf(ctx, spec, paths);
  const remote = backendOf(spec, paths).remote ? view : undefined;
  const obs = await observe(
    paths,
    spec,
    async () => (await view()).alive,
    ctx.io.env,
    now,
    !ctx.dryRun,
    remote,
    logs,
  );
  return { spec, obs };
}

/**
 * `wrapperAlive` (the backend) is only asked when the agent is not alive: a pass over healthy
 * runs spawns nothing.
 * `save`: the stream index may be written (not by a dry run).
 * `remote`: the session's view on a backend whose agents run on other machines (Slurm): the agent
 * lives while its job runs and its wrapper has recorded its start and not yet its end; this
 * machine's process table says nothing of another node's pids.
 */
export async function observe(
  paths: RunPaths,
  spec: RunSpec,
  wrapperAlive: () => Promise<boolean>,
  env: NodeJS.ProcessEnv,
  now: Date,
  save = true,
  remote?: () => Promise<SessionView>,
  logs: () => SessionLog[] = () => readSessionLogs(paths, save),
): Promise<Observation> {
  const record = readSession(paths);
  const job = remote && record ? (await remote()).job : undefined;
  // Only the current session's job says anything of its agent (an older one may still be ending).
  const current = job && record && job.session === record.n ? job : undefined;
  const outputAt = mtime(paths.outputLog);
  const agent = record
    ? await observeAgent(
        paths,
        spec,
        record,
        wrapperAlive,
        env,
        outputAt,
        now,
        logs,
        remote && { job: current },
      )
    : null;
  return {
    sentinel: readSentinel(paths),
    paused: exists(paths.pause) || exists(rootPaths(dirname(paths.workspace)).pauseAll),
    session: record && agent ? { ...record, agent } : null,
    restarts: readRestarts(paths),
    reportExists: exists(paths.report),
    outputAt,
    ...(spec.repo && !exists(spec.repo.worktree) ? { worktreeGone: true } : {}),
    ...(spec.verify ? { checks: await observeChecks(paths, now) } : {}),
    ...(await reviewOf(spec, paths, now)),
    ...(current
      ? { job: { id: current.jobId, node: current.node, state: current.state, restarts: current.restarts } }
      : {}),
  };
}

async function observeAgent(
  paths: RunPaths,
  spec: RunSpec,
  session: SessionRecord,
  wrapperAlive: () => Promise<boolean>,
  env: NodeJS.ProcessEnv,
  outputAt: Date | null,
  now: Date,
  logs: () => SessionLog[],
  remote?: { job: JobView | undefined },
): Promise<RunningAgent | AgentNotRunning> {
  const pid = readAgent(paths, session);
  const alive = remote
    ? pid !== null && jobRuns(remote.job) && !exists(paths.exitFile(session.n))
    : pid !== null && (await isAlive(pid.pid, pid.startTime));
  if (alive) {
    // A busy agent costs nothing: its output is read only once it has been quiet a while.
    const quiet = Math.min(PROMPT_QUIET_S, spec.limits.staleAfter) * 1000;
    const looked = outputAt !== null && now.getTime() - outputAt.getTime() >= quiet;
    const promptSeen = looked ? waitingPrompt(readTail(paths.outputLog, PROMPT_TAIL_BYTES)) : null;
    // Paid extra usage must be caught while the agent runs: its stream is read each pass, unless
    // the run allows overage (the per-session index makes this read cost only what is new).
    const overage = spec.allowOverage ? undefined : overageOf(logs().findLast((l) => l.n === session.n));
    const own = remote ? null : readWrapper(paths, session.n);
    const orphan = own !== null && !(await isAlive(own.pid, own.startTime));
    return {
      running: true,
      promptSeen,
      staleSince: readStaleSince(paths, session.n),
      overage,
      ...(orphan ? { wrapperGone: true } : {}),
    };
  }
  // Liveness before the exit record: the wrapper records the exit before it ends, so a wrapper
  // that the backend saw gone has left its record, and a session's end is never misread as a
  // crash. (A session being started, recorded before the backend runs its wrapper, still looks
  // gone: see mayBeStarting.)
  const viewed = await wrapperAlive();
  // On this machine the wrapper's own record tells what the backend's view cannot: one that
  // outlived its tmux server still runs (and will record the end), and one that is gone has left
  // its exit record if it wrote one, so there is no exit race to wait out.
  const own = remote || viewed ? null : readWrapper(paths, session.n);
  const ownAlive = own !== null && (await isAlive(own.pid, own.startTime));
  const wrapper = viewed || ownAlive;
  const exit = readExitRecord(paths, session.n);
  // The log is only read when a decision may depend on it: a pass over healthy runs stays cheap.
  const endedAt = exit?.at ?? now;
  const offset = -endedAt.getTimezoneOffset();
  const end = endOfSession(logs(), session.n, endedAt, offset, spec.allowOverage);
  return {
    running: false,
    wrapperAlive: wrapper,
    ...(own && !ownAlive ? { wrapperGone: true } : {}),
    started: pid !== null,
    exit,
    hung: exists(paths.hungFile(session.n)),
    ...(remote && endedBy(remote.job) ? { endedBy: endedBy(remote.job) } : {}),
    ...end,
    transcriptBytes: transcriptSize(paths, agentCwd(spec, paths), spec.sessionId, env),
  };
}

/** A run with a reviewer: its step, once started, and its review once it has ended. */
async function reviewOf(spec: RunSpec, paths: RunPaths, now: Date): Promise<Pick<Observation, 'review'>> {
  const review = spec.review ? await observeReview(spec, paths, now) : null;
  return review ? { review } : {};
}
