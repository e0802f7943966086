// What a field read back from a run's files may hold. Every file below a run's directory may have
// been written by its agent, so each value is checked before use: a number in range, a time in a
// sane window, a string of bounded length. Anything else reads as missing.

/** More sessions than any night has (a 31-day run restarting each minute has ~45 000 minutes: a
 * session lasts more than min_uptime, and restarts stop at max_restarts). */
export const SESSION_MAX = 10_000;

/** Times outside these years are not a run's: nothing overnight wrote, and loops over them are huge. */
export const YEAR_MIN = 2000;
export const YEAR_MAX = 2200;

/** A reason or a message; ids, modes and names are shorter. */
export const TEXT_MAX = 4096;
export const WORD_MAX = 256;

/** A session number: an integer from 1 to SESSION_MAX. */
export function sessionNumber(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= SESSION_MAX ? v : null;
}

/** An integer within [min, max]. */
export function intIn(v: unknown, min: number, max: number): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : null;
}

/** A finite number within [min, max]. */
export function numberIn(v: unknown, min: number, max: number): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : null;
}

/** A Date within the sane years, else null. */
export function saneDate(at: Date): Date | null {
  const year = at.getUTCFullYear();
  return Number.isNaN(at.getTime()) || year < YEAR_MIN || year > YEAR_MAX ? null : at;
}

/** An ISO time string (as overnight writes them) within the sane years. */
export function timeOf(v: unknown): Date | null {
  return typeof v === 'string' && v.length <= 64 ? saneDate(new Date(v)) : null;
}

/** A string of at most `max` characters (a longer one is cut, marked with an ellipsis). */
export function textOf(v: unknown, max = TEXT_MAX): string | null {
  if (typeof v !== 'string') return null;
  return v.length > max ? `${v.slice(0, max - 1)}…` : v;
}

/** What overnight writes (toISOString): always a valid time, so only its year is left to check. */
const PLAIN_ISO =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?Z$/;

/**
 * Whether timeOf would give a time, without making a Date for the common form: status checks
 * every time of a thousand cached rows. Any other string is left to timeOf.
 */
export function isTime(v: unknown): boolean {
  if (typeof v !== 'string' || !PLAIN_ISO.test(v)) return timeOf(v) !== null;
  const year = Number(v.slice(0, 4));
  return year >= YEAR_MIN && year <= YEAR_MAX;
}

/** A short token (a mode, an action, an id): one too long is no token at all. */
export function wordOf(v: unknown, max = WORD_MAX): string | null {
  return typeof v === 'string' && v.length <= max ? v : null;
}

/**
 * A directory below a repository's top, as `--repo` recorded it: relative, inside it (no `..`, no
 * `.`, no empty part), one line and bounded.
 */
export function isSubdir(v: unknown): v is string {
  if (typeof v !== 'string' || v === '' || v.length > 4096 || v.startsWith('/')) return false;
  if (Array.from(v).some((c) => (c.codePointAt(0) as number) < 0x20 || c === '\x7f')) return false;
  return v.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}
