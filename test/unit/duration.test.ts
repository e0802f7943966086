import { describe, expect, test } from 'vitest';

import { formatDuration, parseDuration, parseUntil } from '../../src/core/config/duration.js';

describe('parseDuration', () => {
  test.each<{ text: string; want: number }>([
    { text: '45s', want: 45 },
    { text: '30m', want: 1800 },
    { text: '8h', want: 8 * 3600 },
    { text: '0s', want: 0 },
    { text: '0m', want: 0 },
    { text: '1h30m', want: 5400 },
    { text: '2d', want: 2 * 86400 },
    { text: '1d2h3m4s', want: 86400 + 7200 + 180 + 4 },
    { text: '1.5h', want: 5400 },
    { text: '8H', want: 8 * 3600 },
    { text: '1H30M', want: 5400 },
    { text: '45S', want: 45 },
    { text: ' 30m ', want: 1800 },
  ])('$text → $want seconds', ({ text, want }) => {
    expect(parseDuration(text)).toBe(want);
  });

  test.each([
    '',
    ' ',
    '10',
    'abc',
    '5x',
    '-5m',
    '+5m',
    'm',
    '30mm',
    '1h 30m',
    '30 m',
    '1,5h',
    '5m-',
    'h30m',
    '.5h',
  ])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  test.each<{ seconds: number; want: string }>([
    { seconds: 0, want: '0s' },
    { seconds: -5, want: '0s' },
    { seconds: 45, want: '45s' },
    { seconds: 60, want: '1m' },
    { seconds: 1800, want: '30m' },
    { seconds: 5400, want: '1h30m' },
    { seconds: 8 * 3600, want: '8h' },
    { seconds: 3661, want: '1h1m' },
    { seconds: 86400, want: '1d' },
    { seconds: 90000, want: '1d1h' },
    { seconds: 59.6, want: '1m' },
    { seconds: 0.4, want: '0s' },
  ])('$seconds s → $want', ({ seconds, want }) => {
    expect(formatDuration(seconds)).toBe(want);
  });

  test.each(['45s', '30m', '8h', '1h30m', '2d', '1d1h', '10m5s'])('%s survives a round trip', (text) => {
    expect(formatDuration(parseDuration(text) as number)).toBe(text);
  });
});

/** The same local calendar day as `base` (plus `days`), at hh:mm:00.000 local time. */
function localAt(base: Date, hours: number, minutes: number, days = 0): Date {
  const d = new Date(base.getTime());
  d.setDate(d.getDate() + days);
  d.setHours(hours, minutes, 0, 0);
  return d;
}

describe('parseUntil HH:MM (next local occurrence)', () => {
  // Local wall-clock times, whatever the machine's time zone.
  const LATE_EVENING = new Date(2026, 10, 21, 23, 15, 30);
  const EARLY_MORNING = new Date(2026, 10, 21, 6, 30);

  test.each<{ text: string; now: Date; want: { h: number; m: number; days: number } }>([
    { text: '07:00', now: LATE_EVENING, want: { h: 7, m: 0, days: 1 } },
    { text: '23:59', now: LATE_EVENING, want: { h: 23, m: 59, days: 0 } },
    // 23:15:00 is already past at 23:15:30
    { text: '23:15', now: LATE_EVENING, want: { h: 23, m: 15, days: 1 } },
    { text: '00:00', now: LATE_EVENING, want: { h: 0, m: 0, days: 1 } },
    { text: '07:00', now: EARLY_MORNING, want: { h: 7, m: 0, days: 0 } },
    { text: '06:30', now: EARLY_MORNING, want: { h: 6, m: 30, days: 1 } }, // exactly now is not "next"
    { text: '06:29', now: EARLY_MORNING, want: { h: 6, m: 29, days: 1 } },
    { text: '7:05', now: EARLY_MORNING, want: { h: 7, m: 5, days: 0 } },
    { text: ' 23:59 ', now: EARLY_MORNING, want: { h: 23, m: 59, days: 0 } },
    // the night the EU leaves summer time (meaningful when TZ is Europe/*)
    { text: '07:00', now: new Date(2026, 9, 24, 23, 15), want: { h: 7, m: 0, days: 1 } },
  ])('$text at $now → +$want.days day(s)', ({ text, now, want }) => {
    expect(parseUntil(text, now)).toEqual(localAt(now, want.h, want.m, want.days));
  });

  test('from a fixed UTC instant: local 07:00, strictly after now, within a day', () => {
    const now = new Date('2026-11-21T23:15:00Z');
    const at = parseUntil('07:00', now) as Date;
    const today = localAt(now, 7, 0);
    expect(at).toEqual(today.getTime() > now.getTime() ? today : localAt(now, 7, 0, 1));
    expect(at.getHours()).toBe(7);
    expect(at.getMinutes()).toBe(0);
    expect(at.getTime()).toBeGreaterThan(now.getTime());
    expect(at.getTime() - now.getTime()).toBeLessThanOrEqual(25 * 3600 * 1000);
  });
});

describe('parseUntil ISO 8601', () => {
  const now = new Date('2026-11-21T23:15:00Z');
  test.each<{ text: string; want: Date }>([
    { text: '2026-11-22T07:00:00Z', want: new Date('2026-11-22T07:00:00Z') },
    { text: '2026-11-22T07:00:00.000Z', want: new Date('2026-11-22T07:00:00Z') },
    { text: '2026-11-22T08:00:00+01:00', want: new Date('2026-11-22T07:00:00Z') },
    { text: '2026-11-22T07:00', want: new Date(2026, 10, 22, 7, 0) },
    { text: '2026-11-22', want: new Date(2026, 10, 22, 0, 0) },
  ])('$text → $want', ({ text, want }) => {
    expect(parseUntil(text, now)).toEqual(want);
  });
});

describe('parseUntil rejects', () => {
  const now = new Date('2026-11-21T23:15:00Z');
  test.each([
    '25:00',
    '24:00',
    '07:60',
    '7pm',
    'tomorrow',
    '',
    '0700',
    '07:00:00x',
    '2026-13-40T07:00:00Z',
    'T07:00',
  ])('%j', (text) => {
    expect(parseUntil(text, now)).toBeUndefined();
  });
});
