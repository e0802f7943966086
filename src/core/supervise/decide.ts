import type { RunSpec, SessionRecord } from '../run/types.js';
import { decideEnded } from './ended.js';
import { agentAlive } from './live-states.js';
import { decideLive } from './live.js';
import { reviewStep } from './review.js';
import type { RuleId } from './rules.js';
import type { Action, AgentNotRunning, Observation } from './types.js';
import { verifyStep } from './verify.js';

// The reconciler's one decision: pure, from a spec, an observation and the time. The order of the
// rules matters; their numbers are those of docs/development.md ("Reading the code").

/** Resumes in a row that failed without any output before the run starts a fresh session. */
export const FAILED_RESUMES = 3;

export function decide(spec: RunSpec, obs: Observation, now: Date): Action {
  const session = needsWorktree(spec, obs, escalate(spec, obs, decideSession(spec, obs, now)));
  const checked = verifyStep(spec, obs, now, session);
  // 7.3 and 7.4 say a step of their own; a reason they only added to keeps its rule.
  const verified =
    checked.kind === session.kind ? { ...checked, rule: session.rule } : { ...checked, rule: '7.3' as const };
  const reviewed = reviewStep(spec, obs, now, verified);
  return reviewed.kind === verified.kind
    ? { ...reviewed, rule: verified.rule }
    : { ...reviewed, rule: '7.4' };
}

/** 7.2 A repository run's session starts in its worktree: one removed outside overnight ends the run. */
function needsWorktree(spec: RunSpec, obs: Observation, action: Action): Action {
  if (action.kind !== 'start' || !obs.worktreeGone || !spec.repo) return action;
  const reason =
    `the worktree ${spec.repo.worktree} is gone (removed outside overnight), so no session can start; ` +
    `what was committed is on the branch ${spec.repo.branch}`;
  return {
    kind: 'finish',
    cause: 'worktree-gone',
    sentinel: 'FAILED',
    reason,
    stopAgent: false,
    rule: '7.2',
  };
}

function decideSession(spec: RunSpec, obs: Observation, now: Date): Action {
  const action = sessionRule(spec, obs, now);
  return { ...action.action, rule: action.action.rule ?? action.rule };
}

function sessionRule(spec: RunSpec, obs: Observation, now: Date): { rule: RuleId; action: Action } {
  const session = obs.session;
  // 1. A finished run is left alone, but never with an agent still running.
  if (obs.sentinel) {
    if (agentAlive(obs)) {
      const reason = `${obs.sentinel.kind} is present but an agent is still running`;
      return { rule: '1', action: { kind: 'cleanup', cause: 'leftover-agent', reason } };
    }
    return { rule: '1', action: { kind: 'none', cause: obs.sentinel.cause, reason: obs.sentinel.reason } };
  }
  // 2. A paused run is left exactly as it is.
  if (obs.paused) return { rule: '2', action: { kind: 'none', cause: 'paused', reason: 'paused' } };

  // 3. Launch was interrupted before it started the agent: start it now (or give up if too late).
  if (!session) {
    if (now >= spec.endsAt) {
      const reason = 'no report: the end time passed before the agent ever started';
      return {
        rule: '3',
        action: { kind: 'finish', cause: 'never-started', sentinel: 'DONE', reason, stopAgent: false },
      };
    }
    const reason = 'first session was never started';
    return {
      rule: '3',
      action: { kind: 'start', cause: 'first-session', mode: 'initial', reason, exit: null },
    };
  }
  // 4. A live agent keeps working until its end time; a synthesis until its budget runs out.
  if (session.agent.running) {
    const live = decideLive({ spec, session, agent: session.agent, outputAt: obs.outputAt, now });
    return { rule: live.rule ?? '4.6', action: live };
  }
  // 5. The wrapper is between starting the agent and recording it, or between its exit and the record.
  if (!session.agent.exit && session.agent.wrapperAlive) {
    return { rule: '5', action: { kind: 'none', cause: 'starting', reason: 'agent starting or just ended' } };
  }
  const again = startAgain(spec, session, session.agent, now);
  if (again) return { rule: '5', action: again };
  // 6. The agent has ended: the rules of ended.ts (6.1–6.12), the first with an answer decides.
  const ended = decideEnded(spec, obs, session, session.agent, now);
  return { rule: ended.rule ?? '6.12', action: ended };
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
