import { describe, expect, test } from 'vitest';

import {
  isRunId,
  resolveRunName,
  runId,
  SLUG_MAX,
  slugify,
  tmuxSessionName,
  uniqueRunId,
  wrapperInPanes,
} from '../../src/core/run/naming.js';

describe('slugify', () => {
  test.each([
    ['Survey CRDT libraries', 'survey-crdt-libraries'],
    ['Survey CRDT libraries for offline sync', 'survey-crdt-libraries-for-offline-sync'],
    ['Café à la crème, s’il vous plaît', 'cafe-a-la-creme-s-il-vous-plait'],
    ['Ünïcödé Ñandú', 'unicode-nandu'],
    ['  --Hello,   World!!--  ', 'hello-world'],
    ['a/b\\c:d*e?f"g<h>i|j', 'a-b-c-d-e-f-g-h-i-j'],
    ["$(rm -rf ~) `x` 'q'", 'rm-rf-x-q'],
    ['line one\nline two\ttab', 'line-one-line-two-tab'],
    ['UPPER lower 123', 'upper-lower-123'],
    ['snake_case_name', 'snake-case-name'],
    ['ﬁle', 'file'], // NFKD ligature
    ['', 'run'],
    ['   ', 'run'],
    ['!!!', 'run'],
    ['日本語のタスク', 'run'],
    ['🚀🚀', 'run'],
  ])('%j → %j', (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });

  test.each([
    // 40 chars land on a dash: the dash is cut
    ['abcdefghij abcdefghij abcdefghij abcdefghi xyz', 'abcdefghij-abcdefghij-abcdefghij-abcdefg'],
    ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbb', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['x'.repeat(60), 'x'.repeat(40)],
    ['word '.repeat(20), 'word-word-word-word-word-word-word-word'],
  ])('long %j is cut to ≤ 40 chars without a trailing dash', (text, slug) => {
    const got = slugify(text);
    expect(got).toBe(slug);
    expect(got.length).toBeLessThanOrEqual(SLUG_MAX);
  });

  test.each(['Survey CRDT libraries', 'É—é—é', 'x'.repeat(100), '-a--b-', 'a - b -- c'])(
    '%j uses only [a-z0-9-], no edge or double dashes',
    (text) => {
      expect(slugify(text)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    },
  );
});

describe('runId', () => {
  test.each([
    [new Date(2026, 10, 21, 23, 15), 'survey-crdt', '2026-11-21-2315-survey-crdt'],
    [new Date(2026, 0, 5, 7, 5, 59), 'x', '2026-01-05-0705-x'],
    [new Date(2026, 11, 31, 0, 0), 'new-year', '2026-12-31-0000-new-year'],
  ])('%s + %s → %s (local time)', (at, slug, id) => {
    expect(runId(at, slug)).toBe(id);
    expect(isRunId(id)).toBe(true);
  });

  test('uses the local clock of a UTC instant', () => {
    const at = new Date('2026-11-21T23:15:00Z');
    const pad = (n: number) => String(n).padStart(2, '0');
    const want = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}-run`;
    expect(runId(at, 'run')).toBe(want);
  });
});

describe('uniqueRunId', () => {
  const base = '2026-11-21-2315-survey-crdt';
  test.each([
    [[], base],
    [[base], `${base}-2`],
    [[base, `${base}-2`], `${base}-3`],
    [[base, `${base}-2`, `${base}-3`, `${base}-4`], `${base}-5`],
    [[`${base}-2`], base],
    [[base, `${base}-3`], `${base}-2`],
  ])('taken %j → %s', (taken, want) => {
    const id = uniqueRunId(base, (candidate) => taken.includes(candidate));
    expect(id).toBe(want);
    expect(isRunId(id)).toBe(true);
  });
});

describe('isRunId', () => {
  test.each([
    ['2026-11-21-2315-survey-crdt', true],
    ['2026-11-21-2315-survey-crdt-2', true],
    ['2026-11-21-2315-run', true],
    ['2026-11-21-2315-', false],
    ['2026-11-21-2315', false],
    ['2026-11-21-231-x', false],
    ['26-11-21-2315-x', false],
    ['2026-11-21-2315-Survey', false],
    ['2026-11-21-2315-a_b', false],
    ['2026-11-21-2315-a b', false],
    ['overnight-2026-11-21-2315-x', false],
    ['', false],
    ['../etc', false],
  ])('%j → %s', (name, ok) => {
    expect(isRunId(name)).toBe(ok);
  });
});

describe('tmux session names', () => {
  test.each(['2026-11-21-2315-survey-crdt', '2026-11-21-2315-x-2'])('%s', (id) => {
    expect(tmuxSessionName(id)).toBe(`overnight-${id}`);
  });
});

describe('resolveRunName', () => {
  const ids = [
    '2026-11-20-2200-alpha',
    '2026-11-21-2315-survey-crdt',
    '2026-11-21-2315-survey-crdt-2',
    '2026-11-21-2330-beta',
  ];

  test.each([
    ['2026-11-21-2315-survey-crdt', '2026-11-21-2315-survey-crdt'], // exact wins over a longer match
    ['2026-11-21-2315-survey-crdt-2', '2026-11-21-2315-survey-crdt-2'],
    ['2026-11-20', '2026-11-20-2200-alpha'],
    ['2026-11-21-233', '2026-11-21-2330-beta'],
  ])('%s → %s', (name, id) => {
    expect(resolveRunName(name, ids)).toEqual({ id });
  });

  test('an ambiguous prefix lists every match', () => {
    const r = resolveRunName('2026-11-21', ids);
    expect(r).not.toHaveProperty('id');
    const error = (r as { error: string }).error;
    expect(error).toContain('"2026-11-21"');
    expect(error).toContain('3 runs');
    for (const id of ids.slice(1)) expect(error).toContain(id);
    expect(error).not.toContain('alpha');
  });

  test('more than five matches are shown as five and an ellipsis', () => {
    const many = Array.from({ length: 7 }, (_, i) => `2026-11-21-2315-run-${i + 2}`);
    const error = (resolveRunName('2026-11-21', many) as { error: string }).error;
    expect(error).toContain('7 runs');
    for (const id of many.slice(0, 5)) expect(error).toContain(id);
    expect(error).not.toContain(many[5]);
    expect(error).toContain(', ...');
  });

  test.each([
    ['2026-11-22', ids],
    ['survey', ids], // a prefix, not a substring
    ['2026-11-21-2315-survey-crdt-3', ids],
    ['anything', []],
  ])('%j matches nothing', (name, list) => {
    const r = resolveRunName(name, list);
    expect(r).toEqual({ error: expect.stringContaining(`no run matches "${name}"`) });
  });
});

describe('wrapperInPanes', () => {
  const id = '2026-11-21-2315-survey-crdt';
  test.each<[string, [string, { alive: boolean }][], boolean]>([
    ['a live pane in the run’s session', [[`overnight-${id}`, { alive: true }]], true],
    ['a dead pane (remain-on-exit)', [[`overnight-${id}`, { alive: false }]], false],
    ['only another run’s session', [['overnight-2026-11-21-2316-other', { alive: true }]], false],
    ['no tmux server', [], false],
  ])('%s → %s', (_name, panes, want) => {
    expect(wrapperInPanes(new Map(panes), id)).toBe(want);
  });
});
