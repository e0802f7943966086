import { describe, expect, test } from 'vitest';

import {
  FinishedPicker,
  formatFinished,
  parseFinished,
  runFilter,
  type FinishedEntry,
  type RunFilter,
} from '../../src/core/run/run-index.js';
import { at } from './builders.js';

// The finished-runs index: its lines, status's filters, and which runs are picked newest first.

const NOW = at('08:00');
const days = (n: number) => new Date(NOW.getTime() - n * 86400_000);
const entry = (id: string, finishedAt: Date, over: Partial<FinishedEntry> = {}): string =>
  formatFinished({ id: `2026-11-01-0000-${id}`, finishedAt, state: 'done', ...over });

describe('parseFinished', () => {
  test.each([
    { name: 'a line it wrote → the entry', line: entry('a', days(1)), want: { state: 'done' } },
    { name: 'a removal → removed', line: entry('a', days(1), { removed: true }), want: { removed: true } },
    { name: 'a torn line → null', line: entry('a', days(1)).slice(0, 20), want: null },
    {
      name: 'not a run id → null',
      line: '{"id":"x","finishedAt":"2026-11-01T00:00:00Z","state":"done"}',
      want: null,
    },
    { name: 'an unknown state → null', line: entry('a', days(1)).replace('done', 'odd'), want: null },
  ])('$name', ({ line, want }) => {
    expect(parseFinished(line)).toEqual(want === null ? null : expect.objectContaining(want));
  });
});

interface FilterCase {
  name: string;
  opts: { since?: string; state?: string; all?: boolean; json?: boolean };
  want: RunFilter | { error: RegExp };
}

describe('runFilter', () => {
  test.each<FilterCase>([
    { name: 'the table → the last three days', opts: {}, want: { since: days(3), states: null } },
    { name: '--all → every finished run', opts: { all: true }, want: { since: null, states: null } },
    { name: '--json → every run', opts: { json: true }, want: { since: null, states: null } },
    { name: '--since 7d → a week', opts: { since: '7d' }, want: { since: days(7), states: null } },
    {
      name: '--since 36h --json → 36 hours',
      opts: { since: '36h', json: true },
      want: { since: days(1.5), states: null },
    },
    {
      name: '--since a date → that date',
      opts: { since: '2026-11-20T00:00:00Z' },
      want: { since: new Date('2026-11-20T00:00:00Z'), states: null },
    },
    {
      name: '--state failed,running → those',
      opts: { state: 'failed,running' },
      want: { since: days(3), states: ['failed', 'running'] },
    },
    {
      name: '--since soon → an error naming it',
      opts: { since: 'soon' },
      want: { error: /--since "soon" is neither.*7d/ },
    },
    {
      name: '--state broken → an error listing the states',
      opts: { state: 'broken' },
      want: { error: /--state "broken".*running, waiting/ },
    },
  ])('$name', ({ opts, want }) => {
    expect(runFilter(opts, NOW)).toEqual(
      'error' in want ? { error: expect.stringMatching(want.error) } : want,
    );
  });
});

interface PickCase {
  name: string;
  since: Date | null;
  /** Lines oldest first, as appended. */
  lines: string[];
  want: { ids: string[]; more: boolean; read: number };
}

describe('FinishedPicker', () => {
  test.each<PickCase>([
    {
      name: 'a window → the runs inside it, reading stops a day past it',
      since: days(3),
      lines: [
        entry('old', days(10)),
        entry('older-edge', days(3.5)),
        entry('b', days(2)),
        entry('c', days(1)),
      ],
      want: { ids: ['c', 'b'], more: true, read: 4 },
    },
    {
      name: 'far past the window → reading stops at the first line beyond it',
      since: days(3),
      lines: [entry('x', days(30)), entry('y', days(20)), entry('c', days(1))],
      want: { ids: ['c'], more: true, read: 2 },
    },
    {
      name: 'no window → every run, once each',
      since: null,
      lines: [entry('a', days(30)), entry('b', days(2)), entry('a', days(1))],
      want: { ids: ['a', 'b'], more: false, read: 3 },
    },
    {
      name: 'a run removed later → left out',
      since: null,
      lines: [entry('a', days(5)), entry('b', days(2)), entry('a', days(1), { removed: true })],
      want: { ids: ['b'], more: false, read: 3 },
    },
    {
      name: 'torn lines → skipped',
      since: null,
      lines: [entry('a', days(5)), '{"id":"2026-11', entry('b', days(2))],
      want: { ids: ['b', 'a'], more: false, read: 3 },
    },
  ])('$name', ({ since, lines, want }) => {
    const picker = new FinishedPicker(since);
    let read = 0;
    for (const line of [...lines].reverse()) {
      read++;
      if (!picker.take(line)) break;
    }
    expect({ ids: picker.ids.map((id) => id.slice(16)), more: picker.more, read }).toEqual(want);
  });
});
