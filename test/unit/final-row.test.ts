import { describe, expect, test } from 'vitest';

import { parseFinal, parseFinalDoc, transitionOf } from '../../src/read/final-row.js';

// final.json read back as untrusted input (issue 17): a summary that is not what overnight
// writes is a broken file, named by the field that makes it so; never a crash.

const ID = '2026-11-21-2315-survey-crdt-libraries';
const GOOD = {
  id: ID,
  task: 'Survey CRDT libraries',
  state: 'done',
  workspace: '/somewhere/else',
  session: `overnight-${ID}`,
  startedAt: '2026-11-21T23:15:00.000Z',
  endsAt: '2026-11-22T07:15:00.000Z',
  restarts: 1,
  maxRestarts: 5,
  findings: 3,
  questions: 2,
  lastOutputAt: '2026-11-22T07:10:00.000Z',
  lastTransition: { at: '2026-11-22T07:12:00.000Z', action: 'finish', to: 'done', reason: 'report written' },
  reason: 'report written',
  costUsd: 1.25,
  sessions: 2,
  tokens: { input: 1000, output: 200 },
  permissionDenials: { count: 1, tools: [{ name: 'Bash', count: 1 }] },
  report: true,
  countsStamp: '1:2',
};
const final = (over: Record<string, unknown>) => JSON.stringify({ ...GOOD, ...over });

describe('final.json is validated field by field', () => {
  test('a summary as overnight writes it reads back whole', () => {
    expect(parseFinal(final({}), ID)).toEqual({ row: GOOD });
  });

  test('a row in the order overnight writes it is read as it is, and checked as closely', () => {
    const got = parseFinal(final({}), ID);
    const row = 'row' in got ? got.row : null;
    // Written back (as the status cache does), it comes back as the same row.
    expect(parseFinal(JSON.stringify(row), ID)).toEqual({ row: GOOD });
    const without = (key: string) => {
      const copy: Record<string, unknown> = { ...row };
      delete copy[key];
      return JSON.stringify(copy);
    };
    expect(parseFinal(without('state'), ID)).toEqual({ bad: 'has no state' });
    expect(parseFinal(without('reason'), ID)).toEqual({ bad: 'has no reason' });
    expect(parseFinal(without('tokens'), ID)).toMatchObject({ row: { tokens: { input: 0, output: 0 } } });
    expect(parseFinal(JSON.stringify({ ...row, findings: '3' }), ID)).toEqual({
      bad: 'has an invalid findings',
    });
    expect(parseFinal(JSON.stringify({ ...row, id: 'other' }), ID)).toMatchObject({ bad: /another run/ });
  });

  test('unknown fields are dropped', () => {
    const got = parseFinal(final({ evil: '<script>' }), ID);
    expect('row' in got && 'evil' in got.row).toBe(false);
  });

  test('an old summary without the newer fields gets their defaults', () => {
    const got = parseFinal(JSON.stringify({ id: ID, state: 'failed', reason: 'too many crashes' }), ID);
    expect(got).toMatchObject({ row: { restarts: 0, findings: 0, costUsd: 0, lastTransition: null } });
  });

  test.each<{ name: string; text: string; bad: RegExp }>([
    { name: '{}', text: '{}', bad: /has no id/ },
    { name: 'not JSON', text: '{"id": ', bad: /not JSON/ },
    { name: 'an array', text: '[]', bad: /not a JSON object/ },
    { name: 'a string', text: '"done"', bad: /not a JSON object/ },
    { name: 'null', text: 'null', bad: /not a JSON object/ },
    { name: 'a state holding markup', text: final({ state: '<meta http-equiv="refresh">' }), bad: /state/ },
    { name: 'another run’s id', text: final({ id: '2026-11-20-2315-other' }), bad: /another run/ },
    { name: 'restarts -1', text: final({ restarts: -1 }), bad: /restarts/ },
    { name: 'restarts 1.5', text: final({ restarts: 1.5 }), bad: /restarts/ },
    { name: 'findings as a string', text: final({ findings: '3' }), bad: /findings/ },
    { name: 'a cost of 1e300', text: final({ costUsd: 1e300 }), bad: /costUsd/ },
    { name: 'a start in 9999', text: final({ startedAt: '9999-01-01T00:00:00.000Z' }), bad: /startedAt/ },
    { name: 'an end in 1970', text: final({ endsAt: '1970-01-01T00:00:00.000Z' }), bad: /endsAt/ },
    { name: 'a task of 1 MB', text: final({ task: 'x'.repeat(1 << 20) }), bad: /task/ },
    { name: 'sessions 2^53-1', text: final({ sessions: 9007199254740991 }), bad: /sessions/ },
    { name: 'tokens without output', text: final({ tokens: { input: 1 } }), bad: /tokens/ },
    { name: 'warnings not a list', text: final({ warnings: 'x' }), bad: /warnings/ },
    { name: 'a nested transition', text: final({ lastTransition: { at: { x: 1 } } }), bad: /lastTransition/ },
    {
      name: 'a denied tool of 1 MB',
      text: final({ permissionDenials: { count: 1, tools: [{ name: 'x'.repeat(1 << 20), count: 1 }] } }),
      bad: /permissionDenials/,
    },
  ])('$name is a broken file', ({ text, bad }) => {
    const got = parseFinal(text, ID);
    expect('bad' in got && got.bad).toMatch(bad);
  });
});

describe('the last transition shown is flat and bounded', () => {
  test.each<{ name: string; v: unknown; ok: boolean }>([
    { name: 'an event line', v: { at: '2026-11-22T07:12:00.000Z', action: 'start', session: 2 }, ok: true },
    { name: 'a time in 9999', v: { at: '9999-01-01T00:00:00Z', action: 'start' }, ok: false },
    { name: 'a nested value', v: { action: { x: 1 } }, ok: false },
    { name: 'a list', v: [1, 2], ok: false },
    { name: 'a reason of 1 MB', v: { reason: 'x'.repeat(1 << 20) }, ok: false },
  ])('$name', ({ v, ok }) => {
    expect(transitionOf(v) !== null).toBe(ok);
  });
});

test('a summary written before warnings had codes: its words kept, as notices of no code', () => {
  const id = 'r1';
  const doc = { id, state: 'done', reason: 'finished', warnings: ['notifications failing: x'] };
  const got = parseFinalDoc(doc, id);
  expect(got).toMatchObject({ row: { warnings: [{ code: 'other', text: 'notifications failing: x' }] } });
});
