import { reviewLine } from '../review/words.js';
import type { RunSpec } from '../run/types.js';
import type { Action, Observation } from './types.js';
import { checkGate, endsTheWork } from './verify.js';

// 7.4 A run with a reviewer (`review`): once the agent's work is over and its check has given its
// verdict, a separate session reads the work before the synthesis (or before DONE, when the agent
// wrote its report itself). It is a step like the check, never under the lock, stopped at
// review_budget; a review that cannot finish is said as such and never holds the report. Pure.

export function reviewStep(spec: RunSpec, obs: Observation, now: Date, next: Action): Action {
  const review = spec.review;
  if (!review || !spec.repo || obs.sentinel || obs.paused || !endsTheWork(obs, next)) return next;
  const gate = checkGate(
    { command: 'a fresh session', timeout: review.budget },
    'review',
    obs.review?.step,
    now,
  );
  if (gate) return gate;
  const words = obs.review?.review ? reviewLine(obs.review.review, 80) : 'review did not finish';
  if (next.kind === 'start') return { ...next, reason: `${next.reason}; ${words}` };
  return next.kind === 'finish' ? { ...next, reason: `${next.reason}; ${words}` } : next;
}
