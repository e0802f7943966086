import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';

import { parseDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';

// `digest --since`: a duration back from now (24h, 3d, 90m) or an ISO 8601 time. Pure.

export const SINCE_HINT = 'a duration such as 12h, 24h or 3d, or an ISO 8601 time such as 2026-11-21T18:00';

export function parseSince(
  text: string,
  now: Date,
  clock: LocalTime,
): { since: Date; label: string } | { error: string } {
  const seconds = parseDuration(text);
  if (seconds !== undefined && seconds > 0)
    return {
      since: new Date(now.getTime() - seconds * 1000),
      label: `the last ${text.trim().toLowerCase()}`,
    };
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    // A date or time without an offset is local time, as a person means it.
    const at = parseISO(text.trim());
    if (isValid(at) && at.getTime() <= now.getTime()) return { since: at, label: `since ${clock.human(at)}` };
  }
  return { error: `--since "${text}" is not ${SINCE_HINT} in the past` };
}
