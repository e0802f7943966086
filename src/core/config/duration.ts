import { addDays } from 'date-fns/addDays';
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import { set } from 'date-fns/set';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
const DURATION = /^(?:\d+(?:\.\d+)?[smhd])+$/;
const PART = /(\d+(?:\.\d+)?)([smhd])/g;

export const DURATION_HINT = 'a duration such as 45s, 30m, 8h or 1h30m';

/** Parses `45s`, `30m`, `8h`, `1h30m`, `0s` into seconds; undefined when it is not a duration. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (!DURATION.test(s)) return undefined;
  let total = 0;
  for (const m of s.matchAll(PART)) total += Number(m[1]) * (UNIT_SECONDS[m[2] as string] as number);
  return Math.round(total);
}

/** Renders seconds the way a user writes them: 8h, 1h30m, 45s. */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  if (rest <= 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join('');
}

const CLOCK = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/**
 * `--until`: `HH:MM` is the next occurrence of that local time after `now`;
 * anything else must be ISO 8601. Undefined when neither.
 */
export function parseUntil(text: string, now: Date): Date | undefined {
  const clock = CLOCK.exec(text.trim());
  if (clock) {
    const at = set(now, { hours: Number(clock[1]), minutes: Number(clock[2]), seconds: 0, milliseconds: 0 });
    return at.getTime() > now.getTime() ? at : addDays(at, 1);
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const at = parseISO(text.trim());
  return isValid(at) ? at : undefined;
}
