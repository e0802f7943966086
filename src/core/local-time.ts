// Clock text for people: local time (or a named zone, for tests and other machines). Pure: Intl
// formats a given instant; nothing here reads the clock.

export interface LocalTime {
  /** `03:40` */
  hm(at: Date): string;
  /** `03:40:05` */
  hms(at: Date): string;
  /** `Sat 22 Nov 2026, 07:15 (UTC+01:00)` */
  human(at: Date): string;
}

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
  return { hm: (at) => get().hm(at), hms: (at) => get().hms(at), human: (at) => get().human(at) };
}

function build(timeZone: string | undefined): LocalTime {
  const clock = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const date = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZoneName: 'longOffset',
  });
  const hms = (at: Date) => clock.format(at);
  return {
    hms,
    hm: (at) => hms(at).slice(0, 5),
    human(at) {
      const parts = Object.fromEntries(date.formatToParts(at).map((p) => [p.type, p.value]));
      const offset = (parts.timeZoneName ?? 'GMT').replace(/^GMT/, '') || '+00:00';
      const { weekday, day, month, year } = parts;
      return `${weekday} ${day} ${month} ${year}, ${hms(at).slice(0, 5)} (UTC${offset})`;
    },
  };
}
