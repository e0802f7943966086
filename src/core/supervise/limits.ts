// Usage limits, read from what the agent said when it stopped. Pure: text, events and `now` in.
// Wordings change between CLI versions; the structured rate_limit_event is preferred when present.

export type Limit =
  | { kind: 'wait'; resetsAt: Date | null; what: string; overage?: true }
  /** No waiting lifts it (admin, org or spend limits, no credit): the run cannot go on. */
  | { kind: 'hard'; what: string };

const HARD = [
  /usage allocation has been disabled/i,
  /org'?s monthly usage limit/i,
  /individual spend limit/i,
  /credit balance is too low/i,
];

const TIMED = [
  /usage limit reached/i,
  /hit your (?:[\w-]+ )?limit/i,
  /hit your \w+ limit/i,
  /limit reached\s*[∙·]/i,
  /out of extra usage/i,
  /\b\d+-hour limit\b/i,
];

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Minutes east of UTC of `zone` at `at` (Intl is pure: no clock, no files). */
function offsetMinutes(zone: string, at: Date): number | null {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      timeZoneName: 'longOffset',
    }).formatToParts(at);
    const name = parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
    const m = /GMT(?:([+-])(\d{2}):?(\d{2}))?/.exec(name);
    if (!m) return null;
    return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  } catch {
    return null;
  }
}

// `reset(s) [at] [Nov 24[,] [at]] 9[:05] [am|pm] [(zone)]`; groups: month, day, hour, minute, am/pm, zone.
const RESET_TIME = new RegExp(
  [
    String.raw`resets?\s+(?:at\s+)?`,
    String.raw`(?:([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(?:at\s+)?)?`,
    String.raw`(\d{1,2})(?::(\d{2}))?\s*(am|pm)?`,
    String.raw`(?:\s*\(([^)]+)\))?`,
  ].join(''),
  'i',
);

/**
 * The reset time in `resets 11:05am (UTC)`, `resets Nov 24, 9:05am (UTC)`, `reset at 3pm
 * (America/Bogota)`, `resets Sep 15 at 7pm`, `resets 3am`: the next such moment after `now`,
 * in the named zone, else in UTC offset `localOffset` (minutes east, the machine's own).
 */
export function parseResetTime(text: string, now: Date, localOffset: number): Date | null {
  const m = RESET_TIME.exec(text);
  if (!m) return null;
  let hour = Number(m[3]);
  const minute = m[4] ? Number(m[4]) : 0;
  const ampm = m[5]?.toLowerCase();
  if (!ampm && !m[4]) return null; // a bare number is not a time
  if (ampm === 'pm' && hour < 12) hour += 12;
  if (ampm === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return null;
  const zone = m[6]?.trim();
  const offset = zone ? offsetMinutes(zone, now) : localOffset;
  if (offset === null) return null;
  // Wall time in that zone → UTC, on the zone's "today" (or the named date), then the next such.
  const wallNow = new Date(now.getTime() + offset * 60_000);
  const month = m[1] ? MONTHS.indexOf(m[1].toLowerCase()) : wallNow.getUTCMonth();
  const day = m[2] ? Number(m[2]) : wallNow.getUTCDate();
  if (month < 0) return null;
  let at = Date.UTC(wallNow.getUTCFullYear(), month, day, hour, minute) - offset * 60_000;
  const step = m[1] ? 'year' : 'day';
  while (at <= now.getTime()) {
    if (step === 'day') at += 86_400_000;
    else at = Date.UTC(new Date(at).getUTCFullYear() + 1, month, day, hour, minute) - offset * 60_000;
  }
  return new Date(at);
}

/** Paid extra usage a run does not allow: waited out like the usage limit whose window it spends. */
export function overageLimit(rateLimit: { resetsAt: Date | null; type: string | null }): Limit {
  const window = rateLimit.type ? `the ${rateLimit.type} limit` : 'the usage limit';
  return {
    kind: 'wait',
    resetsAt: rateLimit.resetsAt,
    what: `${window} was reached and paid extra usage began (allow_overage is off)`,
    overage: true,
  };
}

/**
 * The limit a session ended on, if any: from its rejected rate_limit_event, else from its error
 * text (the result, or the last lines it printed), never from elsewhere in the log.
 */
export function classifyLimit(
  errorText: string,
  rateLimit: { status: string; resetsAt: Date | null; type: string | null; usingOverage?: boolean } | null,
  now: Date,
  localOffset: number,
): Limit | null {
  const first =
    errorText
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  for (const hard of HARD) if (hard.test(errorText)) return { kind: 'hard', what: first };
  // Rejected while on paid extra usage is no stop: the requests go on, billed.
  if (rateLimit?.status === 'rejected' && !rateLimit.usingOverage)
    return { kind: 'wait', resetsAt: rateLimit.resetsAt, what: `${rateLimit.type ?? 'usage'} limit` };
  if (!TIMED.some((t) => t.test(errorText))) return null;
  const epoch = /limit reached\|(\d{9,11})/i.exec(errorText);
  if (epoch) return { kind: 'wait', resetsAt: new Date(Number(epoch[1]) * 1000), what: 'usage limit' };
  return { kind: 'wait', resetsAt: parseResetTime(errorText, now, localOffset), what: first };
}

/** The text says a usage limit stopped the session (either kind): the words classifyLimit reads. */
export function saysLimit(text: string): boolean {
  return HARD.some((h) => h.test(text)) || TIMED.some((t) => t.test(text));
}
