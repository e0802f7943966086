import type { RunEvent } from '../run/events.js';
import type { Cause } from '../supervise/causes.js';
import type { TimelineInput, WaitFor } from './timeline-types.js';

// What the causes of events mean for the night's story: a wait's kind, a hang, the person's end. Pure.

/** What a wait waits for, from its cause. */
export function waitKind(cause: Cause): WaitFor {
  switch (cause) {
    case 'backoff':
    case 'api-trouble':
    case 'synthesis-retry':
      return 'backoff';
    case 'overage':
      return 'overage';
    case 'usage-limit':
    case 'report-late':
      return 'limit';
    default:
      return 'other';
  }
}

/** The person moved the end time to now (`overnight finish`): the end that follows is theirs. */
export const FINISHED_EARLY = 'finished early by user (overnight finish)';
/**
 * Whether an event is an end-time decision after `overnight finish`: the person's end, not the
 * clock's. Made once per timeline (one pass over the events), asked of each event.
 */
export function endedEarly(input: TimelineInput): (e: RunEvent) => boolean {
  const asked = input.events.find((e) => e.action === 'finish' && e.cause === 'finished-early');
  const at = asked?.at.getTime() ?? Infinity;
  return (e) => e.cause === 'end-time' && e.at.getTime() >= at;
}

/** Interrupts of a session that hung, or sat on a question nobody will answer. */
export const stoppedAsHung = (e: RunEvent) => e.hung || e.cause === 'hang' || e.cause === 'prompt';
