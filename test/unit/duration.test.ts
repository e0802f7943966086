import { describe, expect, test } from 'vitest';

import { formatDuration, parseDuration, parseUntil } from '../../src/core/config/duration.js';

describe('parseDuration', () => {
  test.each([
    ['45s', 45],
    ['30m', 1800],
    ['8h', 8 * 3600],
    ['0s', 0],
    ['0m', 0],
    ['1h30m', 5400],
    ['2d', 2 * 86400],
    ['1d2h3m4s', 86400 + 7200 + 180 + 4],
    ['1.5h', 5400],
    ['8H', 8 * 3600],
    ['1H30M', 5400],
    ['45S', 45],
    [' 30m ', 1800],
  ])('%j → %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
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
  test.each([
    [0, '0s'],
    [-5, '0s'],
    [45, '45s'],
    [60, '1m'],
    [1800, '30m'],
    [5400, '1h30m'],
    [8 * 3600, '8h'],
    [3661, '1h1m'],
    [86400, '1d'],
    [90000, '1d1h'],
    [59.6, '1m'],
    [0.4, '0s'],
  ])('%d → %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
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

  test.each([
    { text: '07:00', now: LATE_EVENING, h: 7, m: 0, days: 1 },
    { text: '23:59', now: LATE_EVENING, h: 23, m: 59, days: 0 },
    { text: '23:15', now: LATE_EVENING, h: 23, m: 15, days: 1 }, // 23:15:00 is already past at 23:15:30
    { text: '00:00', now: LATE_EVENING, h: 0, m: 0, days: 1 },
    { text: '07:00', now: EARLY_MORNING, h: 7, m: 0, days: 0 },
    { text: '06:30', now: EARLY_MORNING, h: 6, m: 30, days: 1 }, // exactly now is not "next"
    { text: '06:29', now: EARLY_MORNING, h: 6, m: 29, days: 1 },
    { text: '7:05', now: EARLY_MORNING, h: 7, m: 5, days: 0 },
    { text: ' 23:59 ', now: EARLY_MORNING, h: 23, m: 59, days: 0 },
    // the night the EU leaves summer time (meaningful when TZ is Europe/*)
    { text: '07:00', now: new Date(2026, 9, 24, 23, 15), h: 7, m: 0, days: 1 },
  ])('$text at $now → +$days day(s)', ({ text, now, h, m, days }) => {
    expect(parseUntil(text, now)).toEqual(localAt(now, h, m, days));
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
  test.each([
    ['2026-11-22T07:00:00Z', new Date('2026-11-22T07:00:00Z')],
    ['2026-11-22T07:00:00.000Z', new Date('2026-11-22T07:00:00Z')],
    ['2026-11-22T08:00:00+01:00', new Date('2026-11-22T07:00:00Z')],
    ['2026-11-22T07:00', new Date(2026, 10, 22, 7, 0)],
    ['2026-11-22', new Date(2026, 10, 22, 0, 0)],
  ])('%s', (text, want) => {
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
