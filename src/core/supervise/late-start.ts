import { formatDuration } from '../config/duration.js';
import type { RunSpec } from '../run/types.js';
import type { Cause } from './causes.js';
import { start, type Ended } from './ended-facts.js';
import type { Action } from './types.js';

/** A start this long after the end time (or a whole budget, if shorter) is named late in its reason. */
export const LATE_START = 60;

/**
 * A synthesis gets its whole budget from when it starts: a first pass long after the end time (a
 * laptop asleep, a reboot, no schedule) would otherwise start it with its deadline already past,
 * and it would be killed at once. The reason says how late it started.
 */
export function lateStart(spec: RunSpec, now: Date): { deadline: Date | null; said: string } {
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

/** The synthesis started after an exploring session ended, with its whole budget however late. */
export function synthesisStart(e: Ended, cause: Cause, reason: string): Action {
  const late = lateStart(e.spec, e.now);
  const action = start(e, 'synthesis', cause, `${reason}${late.said}`);
  return late.deadline ? { ...action, deadline: late.deadline } : action;
}
