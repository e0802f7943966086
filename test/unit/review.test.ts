import { describe, expect, test } from 'vitest';

import { readReview } from '../../src/core/review/read.js';
import { findingLines, reviewLine, reviewNote } from '../../src/core/review/words.js';
import { decide } from '../../src/core/supervise/decide.js';
import type { ObservedCheck } from '../../src/core/verify/types.js';
import { AFTER_END, at, ended, exited, observation, REPO, session, spec } from './builders.js';

// The reviewer: 7.4 of decide (after the check, before the synthesis; never holding the report),
// and what the review session printed, read back as untrusted input.

const withReview = spec({ repo: REPO, review: { budget: 600, model: null } });

function step(over: Partial<ObservedCheck> = {}): ObservedCheck {
  return {
    step: 'review',
    startedAt: at('07:16'),
    tries: 1,
    state: 'exited',
    exit: { code: 0, at: at('07:18') },
    counts: null,
    tail: '',
    ...over,
  };
}

const GOOD = {
  verdict: 'concerns',
  summary: 'Fine, mostly.',
  findings: [{ file: 'a.js', line: 3, severity: 'high', text: 'x' }],
};

const afterEnd = (review?: { step: ObservedCheck; review: ReturnType<typeof readReview> | null }) =>
  observation({
    session: ended(session('initial'), { exit: exited(130, at('07:16')) }),
    ...(review ? { review } : {}),
  });

describe('7.4 the review', () => {
  test.each([
    [
      'not started: started before the synthesis',
      afterEnd(),
      AFTER_END,
      { kind: 'check', step: 'review', cause: 'reviewing' },
    ],
    [
      'running: waited for',
      afterEnd({ step: step({ state: 'running', exit: null }), review: null }),
      AFTER_END,
      { kind: 'none', cause: 'reviewing' },
    ],
    [
      'past review_budget: stopped',
      afterEnd({ step: step({ state: 'running', exit: null }), review: null }),
      at('07:27'),
      { kind: 'stop-check', step: 'review', cause: 'check-timeout' },
    ],
    [
      'done: the synthesis, told the verdict',
      afterEnd({
        step: step(),
        review: readReview(`${JSON.stringify({ type: 'result', structured_output: GOOD })}\n`, 0, null),
      }),
      AFTER_END,
      {
        kind: 'start',
        mode: 'synthesis',
        reason: expect.stringMatching(/review: concerns \(1 finding, 1 high\)/),
      },
    ],
    [
      'unfinished: the synthesis all the same',
      afterEnd({
        step: step({ state: 'timed-out' }),
        review: readReview('', null, 'it ran past review_budget'),
      }),
      AFTER_END,
      { kind: 'start', mode: 'synthesis', reason: expect.stringMatching(/review did not finish/) },
    ],
  ])('%s', (_name, obs, now, want) => {
    expect(decide(withReview, obs, now)).toMatchObject(want);
  });

  test('during the night, and without a repository, nothing of it', () => {
    const working = observation();
    expect(decide(withReview, working, at('03:00')).kind).not.toBe('check');
    const plain = spec({ review: { budget: 600, model: null } });
    expect(decide(plain, afterEnd(), AFTER_END)).toMatchObject({ kind: 'start', mode: 'synthesis' });
  });
});

describe('what the review session printed', () => {
  const result = (o: Record<string, unknown>) => `${JSON.stringify({ type: 'result', ...o })}\n`;
  test('its structured output, bounded and made one line', () => {
    const r = readReview(
      result({
        structured_output: {
          verdict: 'reject',
          summary: `line\u001b[2J\nnext ${'x'.repeat(5000)}`,
          findings: [
            ...Array.from({ length: 80 }, () => ({ file: 'a', line: 1, severity: 'low', text: 'y' })),
            { severity: 'bogus', text: 'dropped' },
          ],
        },
        total_cost_usd: 0.12,
      }),
      0,
      null,
    );
    expect(r.verdict).toBe('reject');
    expect(r.summary.length).toBeLessThanOrEqual(2000);
    expect(r.summary.includes('\u001b')).toBe(false);
    expect(r.summary.includes('\n')).toBe(false);
    expect(r.findings).toHaveLength(50);
    expect(r.costUsd).toBe(0.12);
  });
  test.each([
    ['no result at all', 'garbage\n', /without a result/],
    [
      'an error result',
      result({ is_error: true, result: 'API Error: 500' }),
      /ended with an error: API Error: 500/,
    ],
    [
      'the wrong shape',
      result({ structured_output: { verdict: 'lgtm', summary: 1, findings: 'none' } }),
      /no review of the promised shape/,
    ],
    [
      'a string instead',
      result({ structured_output: '{"verdict":"approve"}' }),
      /no review of the promised shape/,
    ],
  ])('%s: unfinished, said why', (_name, output, why) => {
    const r = readReview(output, 1, null);
    expect(r.verdict).toBeNull();
    expect(r.unfinished).toMatch(why);
    expect(reviewLine(r)).toMatch(/^review did not finish/);
  });
  test('in words', () => {
    const r = readReview(result({ structured_output: GOOD }), 0, null);
    expect(reviewLine(r)).toBe('review: concerns (1 finding, 1 high): Fine, mostly.');
    expect(findingLines(r)).toEqual(['high    a.js:3  x']);
    expect(reviewNote(r)).toMatch(/Answer them in the report/);
  });
});
