import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';

// Times of day in the machine's own zone come from Date, not Intl (cheaper to start): the same text.

describe("the machine's own zone", () => {
  test('shows the times of day Intl shows', () => {
    const intl = new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    const clock = localTime();
    for (const at of [
      '2026-01-01T00:00:00Z',
      '2026-03-29T01:30:05Z',
      '2026-07-14T23:59:59.999Z',
      '1999-12-31T12:00:09Z',
    ]) {
      const d = new Date(at);
      expect(clock.hms(d)).toBe(intl.format(d));
      expect(clock.hm(d)).toBe(intl.format(d).slice(0, 5));
    }
  });

  test('names the day as human() does, every month (September is `Sept`)', () => {
    for (const zone of [undefined, 'UTC', 'Asia/Tokyo']) {
      const clock = localTime(zone);
      for (let m = 0; m < 12; m++)
        for (const at of [new Date(Date.UTC(2026, m, 1, 0, 30)), new Date(Date.UTC(2025, m, 28, 23, 30))]) {
          const [weekday, day, month, year] = clock.day(at);
          expect(clock.human(at)).toMatch(new RegExp(`^${weekday} ${day} ${month} ${year}, `));
        }
    }
  });

  test('an invalid date throws, as Intl does', () => {
    expect(() => localTime().hms(new Date(NaN))).toThrow(RangeError);
    expect(() => localTime().day(new Date(NaN))).toThrow(RangeError);
  });
});
