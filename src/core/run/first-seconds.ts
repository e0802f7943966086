import { DURATION_HINT, formatDuration, parseDuration } from '../config/duration.js';
import { UsageError } from '../errors.js';
import { NO_REPORT, PERSON_ONLY, type Cause } from '../supervise/causes.js';
import { AUTH_FIX } from '../supervise/ended.js';
import type { Sentinel } from './types.js';

// `launch --wait`: what the first seconds of a run say, judged from its records' cause codes
// (never from their prose), and how long to watch. Pure.

/** How long `launch` watches on a terminal when not told: long enough for a refused login's retry. */
export const WAIT_DEFAULT_S = 20;
/** At most this long: launch is no place to watch a night. */
export const WAIT_MAX_S = 10 * 60;

/** The seconds `--wait[=<duration>]` asks for; `true` (no value) is the default. Throws the fix. */
export function waitSeconds(given: string | boolean): number {
  if (given === true) return WAIT_DEFAULT_S;
  const s = typeof given === 'string' ? parseDuration(given) : undefined;
  if (s === undefined || s <= 0 || s > WAIT_MAX_S)
    throw new UsageError(
      `--wait ${String(given)} is not a wait launch can take; give ${DURATION_HINT}, ` +
        `more than 0 and at most ${formatDuration(WAIT_MAX_S)} (or --no-wait)`,
    );
  return s;
}

/**
 * What the run's records say so far. `failed`: it is over, badly; `failing`: it will fail unless
 * the person acts (a login refused once is tried once more, and refused again fails the run);
 * `done`: it is over, with its report; null: nothing yet, it is at work.
 */
export type StartVerdict = { kind: 'failed' | 'failing' | 'done'; cause: Cause; reason: string } | null;

/** The causes that say a run is about to fail: only the person can help it. */
const FAILING: readonly Cause[] = ['login-retry', ...PERSON_ONLY];

export function startVerdict(
  sentinel: Sentinel | null,
  events: readonly { cause: Cause; reason: string }[],
): StartVerdict {
  if (sentinel) {
    const bad = sentinel.kind === 'FAILED' || NO_REPORT.includes(sentinel.cause);
    return { kind: bad ? 'failed' : 'done', cause: sentinel.cause, reason: sentinel.reason };
  }
  const last = events.findLast((e) => FAILING.includes(e.cause));
  if (!last) return null;
  // Refused once, the login is tried once more: what fails the run then, and the fix, said now.
  const reason =
    last.cause === 'login-retry' ? `${last.reason}; refused again, the run fails: ${AUTH_FIX}` : last.reason;
  return { kind: 'failing', cause: last.cause, reason };
}
