import { formatDuration } from '../config/duration.js';
import type { RunSpec, SessionRecord } from '../run/types.js';
import { money, oneLine } from '../text.js';
import { backoffWait, waitOutApiTrouble } from './api-trouble.js';
import { backoffFor, restartDelay } from './backoff.js';
import { blockedReason, blockerOf } from './blocked.js';
import { EXPLORE_SHARE, MIN_SYNTHESIS_USD } from './budget.js';
import { classifyEnd, endLabel, NORMAL_ENDS } from './classify.js';
import { crashRestarts, describeExit } from './exits.js';
import { limitJitter } from './jitter.js';
import type { Limit } from './limits.js';
import type { Action, AgentNotRunning, Observation } from './types.js';

// What follows a session whose agent has ended: rules 4 to 6 of decide.

/** Consecutive refused logins before a run fails. */
export const AUTH_TRIES = 2;
export const AUTH_FIX =
  'for unattended runs put a long-lived token from `claude setup-token` in CLAUDE_CODE_OAUTH_TOKEN, ' +
  'or an ANTHROPIC_API_KEY, in the environment you launch from';
/**
 * The synthesis is tried again, with backoff, while its budget lasts; this only guards against a
 * hot loop when backoff is set to nothing.
 */
export const SYNTHESIS_TRIES = 10;
/** Without a readable reset time, a limit is waited out for this long. */
export const DEFAULT_LIMIT_WAIT = 3600;

const done = (reason: string): Action => ({ kind: 'finish', sentinel: 'DONE', reason, stopAgent: false });
const failed = (reason: string): Action => ({ kind: 'finish', sentinel: 'FAILED', reason, stopAgent: false });

/** The ended session, as every rule below sees it. */
interface Ended {
  spec: RunSpec;
  obs: Observation;
  session: SessionRecord;
  agent: AgentNotRunning;
  now: Date;
  exit: number | null;
  /** `exit 1`, `killed by SIGKILL (exit 137)`, … */
  how: string;
  endedAt: Date;
  /** Seconds the session ran (restart.log keeps it; backoff is computed from it). */
  uptime: number;
}

export function decideEnded(
  spec: RunSpec,
  obs: Observation,
  session: SessionRecord,
  agent: AgentNotRunning,
  now: Date,
): Action {
  const exit = agent.exit ? agent.exit.code : null;
  const recorded = agent.exit?.at ?? obs.outputAt ?? session.startedAt;
  // An exit recorded after this pass read the clock (the exit race) ended now, not in the future:
  // every wait below counts from it, so no backoff due is no wait ('backing off 0s').
  const endedAt = recorded.getTime() > now.getTime() ? now : recorded;
  const uptime = Math.max(0, Math.round((endedAt.getTime() - session.startedAt.getTime()) / 1000));
  const e: Ended = { spec, obs, session, agent, now, exit, how: describeExit(exit), endedAt, uptime };
  const start = (mode: 'resume' | 'continue' | 'retry' | 'synthesis', reason: string): Action => ({
    kind: 'start',
    mode,
    reason,
    exit,
    uptime,
  });
  // A synthesis gets its whole budget however late it starts.
  const synthesis = (reason: string): Action => {
    const late = lateStart(spec, now);
    const action = start('synthesis', `${reason}${late.said}`);
    return late.deadline && action.kind === 'start' ? { ...action, deadline: late.deadline } : action;
  };

  // How the session ended, named once; the agent's own error text says more than an exit status.
  const endClass = classifyEnd({
    exitCode: exit,
    result: agent.result,
    limited: agent.limit !== null,
    auth: agent.authFailures > 0,
    reportExists: obs.reportExists,
    errorType: agent.errorType ?? null,
    stoppedByUs: agent.hung,
  });
  const result = agent.result;
  const errorText = result?.isError && result.text ? oneLine(result.text, 120) : null;
  const ended = now >= spec.endsAt;

  if (session.mode === 'synthesis' && obs.reportExists)
    return done('finished: REPORT.md written by the synthesis');
  // A usage limit is waited out and never counted as a crash; one that no wait lifts ends the run.
  if (endClass === 'usage-limit' && agent.limit) return waitOutLimit(e, agent.limit);
  // What no restart can fix (an account on hold, a model it lacks, …) ends the run with the fix.
  const blocker = endClass === 'blocked' ? blockerOf(agent.errorType) : null;
  if (blocker) return failed(blockedReason(blocker, errorText));
  // Refused credentials have their own count: retried once (a token may be refreshed), then the fix.
  if (endClass === 'auth') {
    const said = errorText ?? e.how;
    if (agent.authFailures >= AUTH_TRIES) {
      return failed(`authentication failed ${agent.authFailures} times in a row (${said}); ${AUTH_FIX}`);
    }
    if (session.mode !== 'synthesis' && !ended) {
      return start('retry', `authentication failed (${said}); trying once more`);
    }
  }
  // 4. The synthesis has ended without a report: tried again while its budget lasts.
  if (session.mode === 'synthesis') return retrySynthesis(e);
  // 5. The agent finished the job itself.
  if ((exit === 0 && obs.reportExists) || endClass === 'finished') return done('finished: REPORT.md written');
  // The spend cap: exploring stops at its share; the report gets what is left, if anything.
  if (spec.maxCost !== null && agent.costUsd >= spec.maxCost * EXPLORE_SHARE) {
    const spent = `spend cap: ${money(agent.costUsd)} of ${money(spec.maxCost)} spent`;
    if (spec.maxCost - agent.costUsd >= MIN_SYNTHESIS_USD) return synthesis(spent);
    return failed(`${spent}, nothing left for the report`);
  }
  // Time is up: one synthesis session writes the report.
  if (ended) return synthesis(`end time reached (${e.how})`);
  // Transient API trouble is waited out, not counted as a crash.
  if (endClass === 'api-trouble') return waitOutApiTrouble({ ...e, said: errorText });

  // 6. Time is left. A clean exit continues; anything else is a crash, resumed unless the breaker trips.
  const clean = NORMAL_ENDS.includes(endClass);
  const said = errorText ? `: ${errorText}` : '';
  const used = crashRestarts(obs.restarts);
  if (!clean && used >= spec.limits.maxRestarts) {
    // The agent's own last words when it left no error result (its stderr, in the log).
    const words = said || (agent.lastWords ? `: ${oneLine(agent.lastWords, 120)}` : '');
    const count =
      spec.limits.maxRestarts === 0
        ? 'no restarts allowed (max_restarts 0)'
        : `${used} restart${used === 1 ? '' : 's'}`;
    return failed(`circuit breaker: ${count}, last ${e.how}${words}`);
  }
  // A session shorter than min_uptime counts toward backoff like a crash, so nothing hot-loops.
  const quick = !clean || uptime < spec.limits.minUptime;
  const delay = quick ? restartDelay(obs.restarts, uptime, spec.limits) : 0;
  const ending = agent.hung ? `stopped as hung (${e.how})` : `${endLabel(endClass, e.how)}${said}`;
  const stopped =
    endClass === 'clean-exit'
      ? 'clean exit'
      : endClass === 'output-cap'
        ? 'reply cut at the output cap'
        : endClass;
  const why = clean ? `${stopped} after ${formatDuration(uptime)}, time left` : ending;
  const retryAt = new Date(endedAt.getTime() + delay * 1000);
  if (now < retryAt) return backoffWait(spec, retryAt, `${why}; backing off ${formatDuration(delay)}`);
  return start(clean ? 'continue' : 'resume', why);
}

/** When a synthesis must be done by: the end time plus its budget, or later for a late report. */
export function synthesisDeadline(spec: RunSpec, session: SessionRecord): Date {
  return session.deadline ?? new Date(spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000);
}

/** A start this long after the end time (or a whole budget, if shorter) is named late in its reason. */
export const LATE_START = 60;

/**
 * A synthesis gets its whole budget from when it starts: a first pass long after the end time (a
 * laptop asleep, a reboot, no schedule) would otherwise start it with its deadline already past,
 * and it would be killed at once. The reason says how late it started.
 */
function lateStart(spec: RunSpec, now: Date): { deadline: Date | null; said: string } {
  const late = Math.round((now.getTime() - spec.endsAt.getTime()) / 1000);
  if (late <= 0) return { deadline: null, said: '' };
  const deadline = new Date(now.getTime() + spec.limits.synthesisBudget * 1000);
  if (late < Math.min(LATE_START, spec.limits.synthesisBudget)) return { deadline, said: '' };
  const budget = formatDuration(spec.limits.synthesisBudget);
  return {
    deadline,
    said: `; the synthesis starts ${formatDuration(late)} late, with its whole budget (${budget})`,
  };
}

function retrySynthesis(e: Ended): Action {
  const { spec, obs, agent, now } = e;
  const tries = obs.restarts.filter((r) => r.mode === 'synthesis').length;
  const deadline = synthesisDeadline(spec, e.session);
  const budgetLeft = now < deadline;
  const moneyLeft = spec.maxCost === null || agent.costUsd < spec.maxCost;
  if (!budgetLeft || !moneyLeft || tries >= SYNTHESIS_TRIES) {
    return done(`no report: the synthesis ended without writing REPORT.md (${e.how})`);
  }
  const why = `the synthesis ended without REPORT.md (${e.how})`;
  // Backoff between tries too: the first at once, then backoff, doubling.
  const delay = backoffFor(tries, spec.limits);
  const retryAt = new Date(e.endedAt.getTime() + delay * 1000);
  if (now < retryAt)
    return { kind: 'wait', until: retryAt, reason: `${why}; backing off ${formatDuration(delay)}` };
  const reason = `${why}; trying again (${tries + 1}/${SYNTHESIS_TRIES})`;
  // A late report's tries keep its deadline.
  const late = e.session.deadline ? { deadline: e.session.deadline } : {};
  return { kind: 'start', mode: 'synthesis', reason, exit: e.exit, uptime: e.uptime, ...late };
}

/**
 * A usage limit (or paid extra usage the run does not allow) is waited out until its reset plus
 * limit_margin and a jitter of up to as much again (at most 5 min; see jitter.ts). One that lifts
 * after the synthesis budget makes the report late, not lost: the run waits, and the synthesis
 * runs when it lifts, within late_report of the end time; one later still (a weekly limit days
 * away) ends the run at once.
 */
function waitOutLimit(e: Ended, limit: Limit): Action {
  const { spec, now } = e;
  if (limit.kind === 'hard') return failed(`usage limit that waiting will not lift: ${limit.what}`);
  const resetsAt = limit.resetsAt ?? new Date(e.endedAt.getTime() + DEFAULT_LIMIT_WAIT * 1000);
  // The reset, its margin and this run's share of the spread, on the wall clock (`now`): a pass
  // after a laptop's sleep compares with the time of day, never with a stored monotonic time.
  const margin = spec.limits.limitMargin + limitJitter(spec.id, resetsAt, spec.limits.limitMargin);
  const resumeAt = new Date(resetsAt.getTime() + margin * 1000);
  const budgetEnd = spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000;
  const lateEnd = spec.endsAt.getTime() + spec.limits.lateReport * 1000;
  const late = resumeAt.getTime() > budgetEnd;
  if (late && resumeAt.getTime() > lateEnd) {
    const window = formatDuration(spec.limits.lateReport);
    return done(`no report: ${limit.what}; it lifts only after late_report (${window} after the end time)`);
  }
  if (now < resumeAt)
    return { kind: 'wait', until: resumeAt, resetsAt, reason: limit.what, ...(late ? { late } : {}) };
  const synthesis = e.session.mode === 'synthesis' || now >= spec.endsAt;
  const reason = `usage limit lifted (${limit.what})`;
  // A synthesis that starts after a limit gets its whole budget from now on.
  const deadline = new Date(Math.max(budgetEnd, now.getTime() + spec.limits.synthesisBudget * 1000));
  return {
    kind: 'start',
    mode: synthesis ? 'synthesis' : 'continue',
    reason,
    exit: e.exit,
    uptime: e.uptime,
    ...(synthesis && deadline.getTime() > budgetEnd ? { deadline } : {}),
  };
}
