import { describe, expect, test } from 'vitest';

import { ticks } from '../../src/core/digest/svg.js';
import { SESSION_MAX } from '../../src/core/run/bounds.js';
import { parseEvent, parseEvents } from '../../src/core/run/events.js';
import { buildTimeline } from '../../src/core/status/timeline.js';
import { at, ev, night } from './story-builders.js';

// Fields read back from a run's files are untrusted (issue 17): out of range reads as missing,
// and nothing read back makes a loop run long.

const line = (over: Record<string, unknown>) =>
  JSON.stringify({ at: '2026-11-21T23:15:00.000Z', action: 'start', session: 2, ...over });

describe('events.jsonl fields are validated', () => {
  test.each<{ name: string; over: Record<string, unknown>; want: 'skipped' | Record<string, unknown> }>([
    { name: 'a plain start', over: {}, want: { session: 2, action: 'start' } },
    { name: 'session 2^53-1', over: { session: 9007199254740991 }, want: { session: null } },
    { name: 'session 0', over: { session: 0 }, want: { session: null } },
    { name: 'session -1', over: { session: -1 }, want: { session: null } },
    { name: 'session 1.5', over: { session: 1.5 }, want: { session: null } },
    { name: 'session past the bound', over: { session: SESSION_MAX + 1 }, want: { session: null } },
    { name: 'session as a string', over: { session: '2' }, want: { session: null } },
    { name: 'a time in 1970', over: { at: '1970-01-01T00:00:00.000Z' }, want: 'skipped' },
    { name: 'a time in 9999', over: { at: '9999-12-31T00:00:00.000Z' }, want: 'skipped' },
    { name: 'a time as a number', over: { at: 0 }, want: 'skipped' },
    { name: 'an until in 9999', over: { until: '9999-01-01T00:00:00Z' }, want: { until: null } },
    { name: 'an action of 1 MB', over: { action: 'x'.repeat(1 << 20) }, want: 'skipped' },
    { name: 'a mode of 1 MB', over: { mode: 'x'.repeat(1 << 20) }, want: { mode: null } },
    { name: 'an exit of 1e300', over: { exit: 1e300 }, want: { exit: null } },
  ])('$name', ({ over, want }) => {
    const got = parseEvent(line(over));
    if (want === 'skipped') expect(got).toBeNull();
    else expect(got).toMatchObject(want);
  });

  test('a reason of 1 MB is cut', () => {
    expect(parseEvent(line({ reason: 'x'.repeat(1 << 20) }))?.reason.length).toBeLessThanOrEqual(4096);
  });

  test('a hostile event among good ones leaves the good ones', () => {
    const text = [
      line({ session: 1 }),
      line({ session: 9007199254740991 }),
      'not json',
      line({ session: 3 }),
    ];
    expect(parseEvents(text.join('\n')).map((e) => e.session)).toEqual([1, null, 3]);
  });
});

describe('loops over what was read back are bounded', () => {
  test('a timeline told of session 2^53-1 ends (sessions clamped)', () => {
    const events = [ev.start(at('23:15:00'), 1, 'initial', 'first session')];
    const input = night({
      events,
      current: { n: 9007199254740991, mode: 'resume', startedAt: at('23:20:00') },
    });
    const got = buildTimeline(input).filter((e) => e.kind === 'session');
    expect(got.length).toBeLessThanOrEqual(SESSION_MAX + 1);
  });

  test.each([
    ['1970 to 9999', '1970-01-01T00:00:00Z', '9999-12-31T00:00:00Z'],
    ['2000 to 2200', '2000-01-01T00:00:00Z', '2200-12-31T00:00:00Z'],
    ['a month', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'],
  ])('a span of %s has at most eight ticks', (_name, from, to) => {
    const t = ticks({ from: new Date(from), to: new Date(to) });
    expect(t.at.length).toBeGreaterThan(0);
    expect(t.at.length).toBeLessThanOrEqual(8);
  });
});
