import { formatDuration } from '../config/duration.js';
import type { RunSpec, SessionRecord } from '../run/types.js';
import { backoffFor } from './backoff.js';
import { done, failed, start, type Ended } from './ended-facts.js';
import { limitJitter } from './jitter.js';
import type { Limit } from './limits.js';
import type { Action } from './types.js';

// The waits that end a night late, not lost: the synthesis tried again while its budget lasts, and
// a usage limit waited out, the report written late when it lifts after the budget. Pure.

/**
 * The synthesis is tried again, with backoff, while its budget lasts; this only guards against a
 * hot loop when backoff is set to nothing.
 */
export const SYNTHESIS_TRIES = 10;
/** Without a readable reset time, a limit is waited out for this long. */
export const DEFAULT_LIMIT_WAIT = 3600;

/** When a synthesis must be done by: the end time plus its budget, or later for a late report. */
export function synthesisDeadline(spec: RunSpec, session: SessionRecord): Date {
  return session.deadline ?? new Date(spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000);
}

export function retrySynthesis(e: Ended): Action {
  const { spec, obs, agent, now } = e;
  const tries = obs.restarts.filter((r) => r.mode === 'synthesis').length;
  const deadline = synthesisDeadline(spec, e.session);
  const budgetLeft = now < deadline;
  const moneyLeft = spec.maxCost === null || agent.costUsd < spec.maxCost;
  if (!budgetLeft || !moneyLeft || tries >= SYNTHESIS_TRIES) {
    return done('no-report', `no report: the synthesis ended without writing REPORT.md (${e.how})`);
  }
  const why = `the synthesis ended without REPORT.md (${e.how})`;
  // Backoff between tries too: the first at once, then backoff, doubling.
  const delay = backoffFor(tries, spec.limits);
  const retryAt = new Date(e.endedAt.getTime() + delay * 1000);
  if (now < retryAt)
    return {
      kind: 'wait',
      cause: 'synthesis-retry',
      until: retryAt,
      reason: `${why}; backing off ${formatDuration(delay)}`,
    };
  const reason = `${why}; trying again (${tries + 1}/${SYNTHESIS_TRIES})`;
  // A late report's tries keep its deadline.
  const late = e.session.deadline ? { deadline: e.session.deadline } : {};
  return { ...start(e, 'synthesis', 'synthesis-retry', reason), ...late };
}

/**
 * A usage limit (or paid extra usage the run does not allow) is waited out until its reset plus
 * limit_margin and a jitter of up to as much again (at most 5 min; see jitter.ts). One that lifts
 * after the synthesis budget makes the report late, not lost: the run waits, and the synthesis
 * runs when it lifts, within late_report of the end time; one later still (a weekly limit days
 * away) ends the run at once.
 */
export function waitOutLimit(e: Ended, limit: Limit): Action {
  const { spec, now } = e;
  if (limit.kind === 'hard')
    return failed('hard-limit', `usage limit that waiting will not lift: ${limit.what}`);
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
    return done(
      'limit-outlasts',
      `no report: ${limit.what}; it lifts only after late_report (${window} after the end time)`,
    );
  }
  if (now < resumeAt) {
    const cause = late ? 'report-late' : limit.overage ? 'overage' : 'usage-limit';
    return { kind: 'wait', cause, until: resumeAt, resetsAt, reason: limit.what, ...(late ? { late } : {}) };
  }
  const synthesis = e.session.mode === 'synthesis' || now >= spec.endsAt;
  const reason = `usage limit lifted (${limit.what})`;
  // A synthesis that starts after a limit gets its whole budget from now on.
  const deadline = new Date(Math.max(budgetEnd, now.getTime() + spec.limits.synthesisBudget * 1000));
  return {
    ...start(e, synthesis ? 'synthesis' : 'continue', 'limit-lifted', reason),
    ...(synthesis && deadline.getTime() > budgetEnd ? { deadline } : {}),
  };
}
