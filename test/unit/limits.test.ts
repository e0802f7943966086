import { describe, expect, test } from 'vitest';

import { classifyLimit, parseResetTime } from '../../src/core/supervise/limits.js';

const NOW = new Date('2026-11-21T23:40:00Z'); // a Saturday night

describe('parseResetTime', () => {
  test.each<{ text: string; offset: number; want: string | null }>([
    {
      text: "You've hit your session limit · resets 11:05am (UTC)",
      offset: 0,
      want: '2026-11-22T11:05:00.000Z',
    },
    {
      text: "You've hit your 5-hour limit · resets 2am (Europe/Paris)",
      offset: 0,
      want: '2026-11-22T01:00:00.000Z',
    },
    {
      text: 'Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).',
      offset: 0,
      want: '2026-11-22T20:00:00.000Z',
    },
    { text: '5-hour limit reached ∙ resets 3am', offset: 60, want: '2026-11-22T02:00:00.000Z' },
    {
      text: "You've hit your weekly limit · resets Nov 24, 9:05am (UTC)",
      offset: 0,
      want: '2026-11-24T09:05:00.000Z',
    },
    {
      text: "You've hit your weekly limit · resets Sep 15 at 7pm",
      offset: 0,
      want: '2027-09-15T19:00:00.000Z',
    },
    {
      text: "You're out of extra usage · resets 11:50pm (UTC)",
      offset: 0,
      want: '2026-11-21T23:50:00.000Z',
    },
    { text: 'resets 12am (UTC)', offset: 0, want: '2026-11-22T00:00:00.000Z' },
    { text: 'resets 25 of them', offset: 0, want: null },
    { text: 'resets 3am (Not/AZone)', offset: 0, want: null },
  ])('$text → $want', ({ text, offset, want }) => {
    expect(parseResetTime(text, NOW, offset)?.toISOString() ?? null).toBe(want);
  });
});

describe('classifyLimit', () => {
  test('a rejected rate_limit_event is the reliable signal', () => {
    const resetsAt = new Date('2026-11-22T04:00:00Z');
    expect(classifyLimit('anything', { status: 'rejected', resetsAt, type: 'five_hour' }, NOW, 0)).toEqual({
      kind: 'wait',
      resetsAt,
      what: 'five_hour limit',
    });
  });

  test('an allowed rate_limit_event and an unrelated error are no limit', () => {
    expect(
      classifyLimit('API Error: 500', { status: 'allowed', resetsAt: null, type: 'five_hour' }, NOW, 0),
    ).toBeNull();
  });

  test('the old |epoch form', () => {
    expect(classifyLimit('Claude AI usage limit reached|1795300000', null, NOW, 0)).toMatchObject({
      kind: 'wait',
      resetsAt: new Date(1795300000 * 1000),
    });
  });

  test.each([
    'Your usage allocation has been disabled by your admin',
    "You've hit your org's monthly usage limit",
    "You've hit your individual spend limit",
    'Credit balance is too low',
  ])('no wait lifts "%s"', (text) => {
    expect(classifyLimit(text, null, NOW, 0)).toEqual({ kind: 'hard', what: text });
  });

  test('a limit without a readable time still waits (the default applies)', () => {
    expect(classifyLimit("You've hit your limit", null, NOW, 0)).toEqual({
      kind: 'wait',
      resetsAt: null,
      what: "You've hit your limit",
    });
  });
});

describe('every limit wording in the field is detected (claude-cli.md)', () => {
  test.each([
    "You've hit your session limit · resets 11:05am (UTC)",
    "You've hit your 5-hour limit · resets 3:10pm (UTC)",
    "You've hit your weekly limit · resets Nov 24, 9:05am (UTC)",
    'Claude AI usage limit reached|1795300000',
    'Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).',
    '5-hour limit reached ∙ resets 3am',
    "You've hit your limit · resets 2am (Europe/Paris)",
    "You've hit your weekly limit · resets Sep 15 at 7pm",
    "You're out of extra usage · resets 9pm",
  ])('%s', (text) => {
    const limit = classifyLimit(text, null, NOW, 0);
    expect(limit?.kind).toBe('wait');
    expect(limit?.kind === 'wait' && limit.resetsAt).toBeInstanceOf(Date);
  });

  test.each([
    'API Error: 500 Internal server error',
    'Invalid API key · Fix external API key',
    'the usage of limits in calculus',
  ])('not a limit: %s', (text) => {
    expect(classifyLimit(text, null, NOW, 0)).toBeNull();
  });
});
