import { describe, expect, it } from 'vitest';

import { isTime, timeOf } from '../../src/core/run/bounds.js';

// isTime answers for the common form without a Date: it must agree with timeOf everywhere.
describe('isTime', () => {
  const cases: unknown[] = [
    '2026-11-28T10:11:04.869Z',
    '2026-11-28T10:11:04Z',
    '2026-11-28T10:11:04.1234567Z',
    '1999-12-31T23:59:59.999Z',
    '2000-01-01T00:00:00.000Z',
    '2200-12-31T23:59:59.999Z',
    '2201-01-01T00:00:00.000Z',
    '2024-02-30T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-00-01T00:00:00Z',
    '2024-01-00T00:00:00Z',
    '2024-01-32T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T24:30:00Z',
    '2024-01-01T23:60:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01T00:00:00.Z',
    '2024-01-01T00:00:00+02:00',
    '2024-01-01',
    'Mon, 01 Jan 2024 00:00:00 GMT',
    ' 2024-01-01T00:00:00Z',
    '2024-01-01T00:00:00Z\n',
    '+002024-01-01T00:00:00Z',
    '',
    'x'.repeat(65),
    null,
    1704067200000,
    {},
  ];
  it.each(cases.map((c) => [c]))('agrees with timeOf on %j', (v) => {
    expect(isTime(v)).toBe(timeOf(v) !== null);
  });
});
