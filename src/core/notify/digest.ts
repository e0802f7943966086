import { format } from 'date-fns/format';
import { set } from 'date-fns/set';

import type { NotifyEvent } from './events.js';

// The morning digest by notification: a target with `on: digest` and `at: "07:30"` is sent the
// digest's text by the first pass after that local time, once a day. Pure: local time from the
// given instant, as launch's --until reads it.

/** What the outbox files a digest delivery under in place of a run id (never a run id's shape). */
export const DIGEST_RUN = 'digest';

/** The local day of `at` as a number, `20261122`: a digest delivery's place in the outbox. */
export function dayOf(at: Date): number {
  return Number(format(at, 'yyyyMMdd'));
}

/** The day whose digest is due at `now` for a target sending it at `at` (`HH:MM`), or null before then. */
export function digestDue(at: string, now: Date): number | null {
  const [h, m] = at.split(':').map(Number);
  const due = set(now, { hours: h ?? 0, minutes: m ?? 0, seconds: 0, milliseconds: 0 });
  return now.getTime() >= due.getTime() ? dayOf(now) : null;
}

/** The day's digest as the event every kind of target is sent (its text is the message). */
export function digestEvent(
  day: number,
  now: Date,
  root: string,
  text: string,
  summary: string,
): NotifyEvent {
  return {
    id: `${DIGEST_RUN}:${day}`,
    event: 'digest',
    kinds: ['digest'],
    run: DIGEST_RUN,
    state: 'digest',
    reason: summary,
    at: now.toISOString(),
    report: null,
    workspace: root,
    task: null,
    text,
  };
}
