import type { RunSpec, SessionRecord } from '../run/types.js';
import { fixOver } from '../verify/fix.js';
import { decideEnded, synthesisDeadline } from './ended.js';
import { watchForHang } from './hang.js';
import { agentAlive } from './live-states.js';
import { reviewStep } from './review.js';
import type { Action, AgentNotRunning, Observation, RunningAgent } from './types.js';
import { verifyStep } from './verify.js';

// The reconciler's one decision: pure, from a spec, an observation and the time. The order of the
// rules matters; their numbers are those of docs/development.md ("Reading the code").

/** Resumes in a row that failed without any output before the run starts a fresh session. */
export const FAILED_RESUMES = 3;

export function decide(spec: RunSpec, obs: Observation, now: Date): Action {
  const session = needsWorktree(spec, obs, escalate(spec, obs, decideSession(spec, obs, now)));
  return reviewStep(spec, obs, now, verifyStep(spec, obs, now, session));
}

/** 7.2 A repository run's session starts in its worktree: one removed outside overnight ends the run. */
function needsWorktree(spec: RunSpec, obs: Observation, action: Action): Action {
  if (action.kind !== 'start' || !obs.worktreeGone || !spec.repo) return action;
  const reason =
    `the worktree ${spec.repo.worktree} is gone (removed outside overnight), so no session can start; ` +
    `what was committed is on the branch ${spec.repo.branch}`;
  return { kind: 'finish', cause: 'worktree-gone', sentinel: 'FAILED', reason, stopAgent: false };
}

function decideSession(spec: RunSpec, obs: Observation, now: Date): Action {
  const session = obs.session;
  // 1. A finished run is left alone, but never with an agent still running.
  if (obs.sentinel) {
    if (agentAlive(obs)) {
      const reason = `${obs.sentinel.kind} is present but an agent is still running`;
      return { kind: 'cleanup', cause: 'leftover-agent', reason };
    }
    return { kind: 'none', cause: obs.sentinel.cause, reason: obs.sentinel.reason };
  }
  // 2. A paused run is left exactly as it is.
  if (obs.paused) return { kind: 'none', cause: 'paused', reason: 'paused' };

  // 3. Launch was interrupted before it started the agent: start it now (or give up if too late).
  if (!session) {
    if (now >= spec.endsAt) {
      const reason = 'no report: the end time passed before the agent ever started';
      return { kind: 'finish', cause: 'never-started', sentinel: 'DONE', reason, stopAgent: false };
    }
    const reason = 'first session was never started';
    return { kind: 'start', cause: 'first-session', mode: 'initial', reason, exit: null };
  }
  // 4. A live agent keeps working until its end time; a synthesis until its budget runs out.
  if (session.agent.running) return decideRunning(spec, session, session.agent, obs.outputAt, now);
  // 5. The wrapper is between starting the agent and recording it, or between its exit and the record.
  if (!session.agent.exit && session.agent.wrapperAlive) {
    return { kind: 'none', cause: 'starting', reason: 'agent starting or just ended' };
  }
  const again = startAgain(spec, session, session.agent, now);
  if (again) return again;
  // 6. The agent has ended: the rules of ended.ts (6.1–6.12), the first with an answer decides.
  return decideEnded(spec, obs, session, session.agent, now);
}

/**
 * A recorded session whose agent never started (tmux refused the session while its server was
 * exiting, or the pass died before tmux ran it) is started again as it was recorded: it did not
 * crash, so no restart is counted and no backoff applies. Only sessions that ran are judged by how
 * they ended. Past its time it is judged like any ended session (the synthesis, or the end).
 */
function startAgain(spec: RunSpec, session: SessionRecord, agent: AgentNotRunning, now: Date): Action | null {
  if (agent.started || agent.exit) return null;
  // A late synthesis (after a usage limit) has a deadline of its own.
  const until =
    session.deadline?.getTime() ??
    spec.endsAt.getTime() + (session.mode === 'synthesis' ? spec.limits.synthesisBudget * 1000 : 0);
  if (now.getTime() >= until) return null;
  const reason = `session ${session.n} never started its agent`;
  return { kind: 'start', cause: 'start-again', mode: session.mode, reason, exit: null, again: true };
}

function decideRunning(
  spec: RunSpec,
  session: SessionRecord,
  agent: RunningAgent,
  outputAt: Date | null,
  now: Date,
): Action {
  const prompt = agent.promptSeen;
  // Paid extra usage the run does not allow: stopped at once (not a crash), then waited out.
  if (agent.overage && !spec.allowOverage) {
    const window = agent.overage.window ? `the ${agent.overage.window} limit` : 'the usage limit';
    const reason = `paid extra usage: ${window} was reached and allow_overage is off`;
    return { kind: 'interrupt', cause: 'overage', reason: `${reason}; stopping until it resets` };
  }
  if (session.mode === 'synthesis') {
    if (now.getTime() >= synthesisDeadline(spec, session).getTime()) {
      const reason = 'report incomplete: the synthesis was still running when its budget ran out';
      return { kind: 'finish', cause: 'report-incomplete', sentinel: 'DONE', reason, stopAgent: true };
    }
    // A synthesis stuck on a question or hung is stopped and tried again while its budget lasts.
    if (prompt) {
      const reason = `the synthesis is waiting for input nobody will give: "${prompt}"`;
      return { kind: 'interrupt', cause: 'prompt', hung: true, reason };
    }
    return (
      watchForHang(spec, session, agent, outputAt, now) ?? {
        kind: 'none',
        cause: 'working',
        reason: 'writing the report',
      }
    );
  }
  if (session.mode === 'fix') {
    // The fix session (verify_budget) ends at the budget's end; a question stops it, not the run.
    const over = fixOver(session.deadline, spec, now);
    if (over) return over;
    if (prompt) {
      const reason = `the fix session is waiting for input nobody will give: "${prompt}"`;
      return { kind: 'interrupt', cause: 'prompt', hung: true, reason };
    }
    const fixing = {
      kind: 'none' as const,
      cause: 'working' as const,
      reason: 'fixing what the check found',
    };
    return watchForHang(spec, session, agent, outputAt, now) ?? fixing;
  }
  if (prompt) {
    const reason = `the agent is waiting for input nobody will give: "${prompt}"`;
    return { kind: 'finish', cause: 'prompt', sentinel: 'FAILED', reason, stopAgent: true };
  }
  if (now >= spec.endsAt) {
    const reason = 'end time reached: stopping exploration for the synthesis';
    return { kind: 'interrupt', cause: 'end-time', reason };
  }
  return (
    watchForHang(spec, session, agent, outputAt, now) ?? {
      kind: 'none',
      cause: 'working',
      reason: 'agent running',
    }
  );
}

/**
 * 7.1 A session that would resume the conversation starts a fresh one instead when resuming cannot
 * work: no transcript (resume would silently start an empty conversation), a transcript too large
 * to load, or resumes that keep failing without output.
 */
function escalate(spec: RunSpec, obs: Observation, action: Action): Action {
  const agent = obs.session?.agent;
  if (action.kind !== 'start' || action.mode === 'initial' || action.again || !agent || agent.running)
    return action;
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
  const bytes = agent.transcriptBytes;
  const max = spec.limits.maxTranscript;
  const why =
    bytes === null
      ? 'the transcript is missing'
      : bytes > max
        ? `the transcript is ${mb(bytes)}, over max_transcript (${mb(max)})`
        : agent.failedResumes >= FAILED_RESUMES
          ? `${agent.failedResumes} resumes in a row failed without output`
          : null;
  return why
    ? { ...action, fresh: why, reason: `${action.reason}; starting a fresh session: ${why}` }
    : action;
}
