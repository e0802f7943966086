import type { Limits, RestartEntry } from '../run/types.js';

// Backoff between restarts, derived from restart.log each pass (the reconciler keeps no memory).

/** Restarts that follow a session ending on its own (not the synthesis). */
const COUNTED: readonly string[] = ['resume', 'continue', 'retry'];

/**
 * Consecutive unhealthy sessions, the one that just ended included: each restart.log line
 * records how long the session before it ran, and a session of `healthy_after` resets the count.
 */
export function failureStreak(restarts: readonly RestartEntry[], lastUptime: number, limits: Limits): number {
  if (lastUptime >= limits.healthyAfter) return 0;
  let streak = 1;
  for (let i = restarts.length - 1; i >= 0; i--) {
    const r = restarts[i] as RestartEntry;
    if (!COUNTED.includes(r.mode) || r.uptime === null || r.uptime >= limits.healthyAfter) break;
    streak++;
  }
  return streak;
}

/** Seconds to wait after `failures` in a row: none after one, then backoff doubling up to backoff_max. */
export function backoffFor(failures: number, limits: Limits): number {
  if (failures <= 1) return 0;
  return Math.min(limits.backoff * 2 ** (failures - 2), limits.backoffMax);
}

/** Seconds to wait before the next start, from the streak of unhealthy sessions in restart.log. */
export function restartDelay(restarts: readonly RestartEntry[], lastUptime: number, limits: Limits): number {
  return backoffFor(failureStreak(restarts, lastUptime, limits), limits);
}
