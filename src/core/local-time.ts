// Clock text for people: local time (or a named zone, for tests and other machines). Pure: Intl
// formats a given instant; nothing here reads the clock.

export interface LocalTime {
  /** `03:40` */
  hm(at: Date): string;
  /** `03:40:05` */
  hms(at: Date): string;
  /** `Sat 22 Nov 2026, 07:15 (UTC+01:00)` */
  human(at: Date): string;
  /** The day `at` falls on, as `human` names it: `['Sat', '22', 'Nov', '2026']`. */
  day(at: Date): Day;
}

export type Day = readonly [weekday: string, day: string, month: string, year: string];

const cache = new Map<string, LocalTime>();

/** Clock text in `timeZone`, or in the machine's own zone when it is not given. */
export function localTime(timeZone?: string): LocalTime {
  const key = timeZone ?? '';
  let made = cache.get(key);
  if (!made) {
    made = build(timeZone);
    cache.set(key, made);
  }
  return made;
}

/**
 * The same, set up on first use: the formatters take milliseconds to make, which a pass over runs
 * that need no clock text (most of them) should not pay.
 */
export function lazyLocalTime(timeZone?: string): LocalTime {
  let made: LocalTime | undefined;
  const get = () => (made ??= localTime(timeZone));
  return {
    hm: (at) => get().hm(at),
    hms: (at) => get().hms(at),
    human: (at) => get().human(at),
    day: (at) => get().day(at),
  };
}

function build(timeZone: string | undefined): LocalTime {
  // The machine's own zone is Date's: its first Intl formatter costs tens of milliseconds to
  // make, most of a status that shows times of day. A named zone needs Intl.
  const clock =
    timeZone === undefined
      ? null
      : new Intl.DateTimeFormat('en-GB', {
          timeZone,
          hour: '2-digit',
          minute: '2-digit',
          second: '2-digit',
          hourCycle: 'h23',
        });
  // The date's formatters only when a date is shown: the board shows times of day, and days.
  let date: Intl.DateTimeFormat | undefined;
  let dayOnly: Intl.DateTimeFormat | undefined;
  const hms = (at: Date) => (clock ? clock.format(at) : ownHms(at));
  return {
    hms,
    hm: (at) => hms(at).slice(0, 5),
    human(at) {
      date ??= new Intl.DateTimeFormat('en-GB', {
        timeZone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        timeZoneName: 'longOffset',
      });
      const parts = Object.fromEntries(date.formatToParts(at).map((p) => [p.type, p.value]));
      const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
      const { weekday, day, month, year } = parts;
      return `${weekday} ${day} ${month} ${year}, ${hms(at).slice(0, 5)} (UTC${offset})`;
    },
    day(at) {
      if (timeZone === undefined) return ownDay(at);
      dayOnly ??= new Intl.DateTimeFormat('en-GB', {
        timeZone,
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        year: 'numeric',
      });
      const parts = Object.fromEntries(dayOnly.formatToParts(at).map((p) => [p.type, p.value]));
      return [parts.weekday ?? '', parts.day ?? '', parts.month ?? '', parts.year ?? ''];
    },
  };
}

// en-GB's short names, as Intl gives them (`Sept`).
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sept', 'Oct', 'Nov', 'Dec'];

/** The day in the machine's zone, from Date (no Intl formatter to make); an invalid date throws. */
function ownDay(at: Date): Day {
  if (Number.isNaN(at.getTime())) throw new RangeError('Invalid time value');
  return [
    WEEKDAYS[at.getDay()] as string,
    String(at.getDate()),
    MONTHS[at.getMonth()] as string,
    String(at.getFullYear()),
  ];
}

/** `03:40:05` in the machine's zone; an invalid date throws, as Intl's formatter does. */
function ownHms(at: Date): string {
  if (Number.isNaN(at.getTime())) throw new RangeError('Invalid time value');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
