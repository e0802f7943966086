import type { RunState } from '../run/types.js';
import { NO_REPORT, PERSON_ONLY, type Cause } from './causes.js';
import { isLive } from './live-states.js';

// What needs the person, decided once from cause codes and a few facts: status, `status --check`,
// the digest and the notifications all ask here. Pure; no prose is read.

/** Why a run needs the person: each reader words it its own way. */
export type Need = 'broken-file' | 'failed' | 'not-verified' | 'no-report' | 'overage' | 'notifications';

export interface AttentionFacts {
  state: RunState;
  /** A file of the run cannot be used. */
  problem?: string;
  /** Whether REPORT.md exists; unknown (rows cached before it was recorded) is judged by the cause. */
  report?: boolean;
  /** The live run goes on billing paid extra usage (allow_overage is on). */
  onOverage?: boolean;
  /** Notifications about the run are not getting through. */
  notifyFailing?: boolean;
  /** The run's check (`--verify`) found new failures, or could not run: overnight's verdict. */
  checkFailed?: boolean;
}

export interface Attention {
  need: Need;
  /** Only the person can clear it: retrying proves nothing (notifications say "needs you"). */
  only: boolean;
}

/** What the run needs from the person, or null when nothing. */
export function attention(cause: Cause, f: AttentionFacts): Attention | null {
  const only = PERSON_ONLY.includes(cause);
  if (f.problem) return { need: 'broken-file', only: true };
  if (f.state === 'failed') return { need: 'failed', only };
  // A night whose check failed is not done, whatever its report says.
  if (f.state === 'done' && f.checkFailed) return { need: 'not-verified', only: false };
  // A night that ended without a report leaves findings/ to be read by hand; a stop is the person's own.
  if (f.state === 'done' && cause !== 'stopped') {
    if (f.report === false || (f.report === undefined && NO_REPORT.includes(cause)))
      return { need: 'no-report', only: false };
  }
  if (isLive(f.state) && (f.onOverage || (f.state === 'waiting' && cause === 'overage')))
    return { need: 'overage', only: false };
  if (f.notifyFailing) return { need: 'notifications', only: false };
  return null;
}

/**
 * A need in a few words, the run's reason given where it says more; `id` makes a hint pastable.
 * `cause`: a run that ended on a cause of NO_REPORT says so in its own reason already.
 */
export function needWords(
  need: Need,
  reason: string,
  problem?: string,
  id = '<run>',
  cause?: Cause | null,
): string {
  switch (need) {
    case 'broken-file':
      return `a file cannot be used: ${problem ?? reason}`;
    case 'failed':
      return reason || 'failed';
    case 'not-verified':
      return `NOT verified: the check failed (its failures are in status ${id})`;
    case 'no-report':
      return cause && NO_REPORT.includes(cause) && reason ? reason : `no report (${reason || 'done'})`;
    case 'overage':
      return 'on paid extra usage';
    case 'notifications':
      return 'notifications failing';
  }
}
