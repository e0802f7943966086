import { describe, expect, test } from 'vitest';

import {
  attachCommand,
  isRunId,
  mayBeNamed,
  resolveRunName,
  runId,
  SLUG_MAX,
  slugify,
  tmuxSessionName,
  uniqueRunId,
  wrapperInPanes,
} from '../../src/core/run/naming.js';

describe('slugify', () => {
  test.each<{ text: string; want: string }>([
    { text: 'Survey CRDT libraries', want: 'survey-crdt-libraries' },
    { text: 'Survey CRDT libraries for offline sync', want: 'survey-crdt-libraries-for-offline-sync' },
    { text: 'Café à la crème, s’il vous plaît', want: 'cafe-a-la-creme-s-il-vous-plait' },
    { text: 'Ünïcödé Ñandú', want: 'unicode-nandu' },
    { text: '  --Hello,   World!!--  ', want: 'hello-world' },
    { text: 'a/b\\c:d*e?f"g<h>i|j', want: 'a-b-c-d-e-f-g-h-i-j' },
    { text: "$(rm -rf ~) `x` 'q'", want: 'rm-rf-x-q' },
    { text: 'line one\nline two\ttab', want: 'line-one-line-two-tab' },
    { text: 'UPPER lower 123', want: 'upper-lower-123' },
    { text: 'snake_case_name', want: 'snake-case-name' },
    { text: 'ﬁle', want: 'file' }, // NFKD ligature
    { text: '', want: 'run' },
    { text: '   ', want: 'run' },
    { text: '!!!', want: 'run' },
    { text: '🚀🚀', want: 'run' },
    // Letters of other scripts are kept, in lower case where they have one.
    { text: '日本語のタスク', want: '日本語のタスク' },
    { text: 'Ночная РАБОТА', want: 'ночная-работа' },
    { text: 'ダウンロード 調査', want: 'ダウンロード-調査' }, // composed again after the accents go
    { text: 'हिन्दी काम', want: 'हिन्दी-काम' }, // vowel signs are marks, not separators
    { text: 'Nuit blanche ☾ 2', want: 'nuit-blanche-2' },
    { text: 'Ελληνικά!', want: 'ελληνικά' },
    { text: 'Твой отчёт', want: 'твой-отчёт' }, // й and ё are letters of their own, not accented ones
  ])('$text → $want', ({ text, want }) => {
    expect(slugify(text)).toBe(want);
  });

  test.each<{ text: string; want: string }>([
    // 40 chars land on a dash: the dash is cut
    {
      text: 'abcdefghij abcdefghij abcdefghij abcdefghi xyz',
      want: 'abcdefghij-abcdefghij-abcdefghij-abcdefg',
    },
    {
      text: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbb',
      want: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    },
    { text: 'x'.repeat(60), want: 'x'.repeat(40) },
    { text: 'word '.repeat(20), want: 'word-word-word-word-word-word-word-word' },
    { text: '夜'.repeat(50), want: '夜'.repeat(40) },
    { text: '𠀋'.repeat(41), want: '𠀋'.repeat(40) }, // beyond the BMP: cut by characters, not halves
  ])('long $text is cut to ≤ 40 chars without a trailing dash → $want', ({ text, want }) => {
    const got = slugify(text);
    expect(got).toBe(want);
    expect(Array.from(got).length).toBeLessThanOrEqual(SLUG_MAX);
    expect(got).toBe(got.normalize('NFC'));
  });

  test.each(['Survey CRDT libraries', 'É—é—é', 'x'.repeat(100), '-a--b-', 'a - b -- c'])(
    '%j uses only [a-z0-9-], no edge or double dashes',
    (text) => {
      expect(slugify(text)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    },
  );

  test.each(['日本語のタスク', 'Ночная работа', 'a/b\\c 夜', '..', 'x\u0000y', '\u0301abc'])(
    '%j makes a run id of letters, digits and single dashes',
    (text) => {
      const id = runId(new Date(2026, 10, 21, 23, 15), slugify(text));
      expect(isRunId(id)).toBe(true);
      expect(slugify(text)).toMatch(/^[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(-[\p{L}\p{M}\p{N}]+)*$/u);
    },
  );
});

describe('runId', () => {
  test.each<{ at: Date; slug: string; want: string }>([
    { at: new Date(2026, 10, 21, 23, 15), slug: 'survey-crdt', want: '2026-11-21-2315-survey-crdt' },
    { at: new Date(2026, 0, 5, 7, 5, 59), slug: 'x', want: '2026-01-05-0705-x' },
    { at: new Date(2026, 11, 31, 0, 0), slug: 'new-year', want: '2026-12-31-0000-new-year' },
  ])('$at + $slug → $want (local time)', ({ at, slug, want }) => {
    expect(runId(at, slug)).toBe(want);
    expect(isRunId(want)).toBe(true);
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
  test.each<{ taken: string[]; want: string }>([
    { taken: [], want: base },
    { taken: [base], want: `${base}-2` },
    { taken: [base, `${base}-2`], want: `${base}-3` },
    { taken: [base, `${base}-2`, `${base}-3`, `${base}-4`], want: `${base}-5` },
    { taken: [`${base}-2`], want: base },
    { taken: [base, `${base}-3`], want: `${base}-2` },
  ])('taken $taken → $want', ({ taken, want }) => {
    const id = uniqueRunId(base, (candidate) => taken.includes(candidate));
    expect(id).toBe(want);
    expect(isRunId(id)).toBe(true);
  });
});

describe('isRunId', () => {
  test.each<{ name: string; want: boolean }>([
    { name: '2026-11-21-2315-survey-crdt', want: true },
    { name: '2026-11-21-2315-survey-crdt-2', want: true },
    { name: '2026-11-21-2315-run', want: true },
    { name: '2026-11-21-2315-', want: false },
    { name: '2026-11-21-2315', want: false },
    { name: '2026-11-21-231-x', want: false },
    { name: '26-11-21-2315-x', want: false },
    { name: '2026-11-21-2315-Survey', want: false },
    { name: '2026-11-21-2315-a_b', want: false },
    { name: '2026-11-21-2315-夜間の調査', want: true },
    { name: '2026-11-21-2315-ночь-2', want: true },
    { name: '2026-11-21-2315-🚀', want: false },
    { name: '2026-11-21-2315-夜/..', want: false },
    { name: '2026-11-21-2315-a b', want: false },
    { name: 'overnight-2026-11-21-2315-x', want: false },
    { name: '', want: false },
    { name: '../etc', want: false },
  ])('$name → $want', ({ name, want }) => {
    expect(isRunId(name)).toBe(want);
  });
});

describe('tmux session names', () => {
  test.each<{ id: string; want: string }>([
    { id: '2026-11-21-2315-survey-crdt', want: 'overnight-2026-11-21-2315-survey-crdt' },
    { id: '2026-11-21-2315-x-2', want: 'overnight-2026-11-21-2315-x-2' },
    // Spelled out: tmux shows letters beyond ASCII as `_` to a client whose locale is not UTF-8.
    { id: '2026-11-21-2315-夜間', want: 'overnight-2026-11-21-2315-_591c__9593_' },
    { id: '2026-11-21-2315-été', want: 'overnight-2026-11-21-2315-_e9_t_e9_' },
    { id: '2026-11-21-2315-𠀋', want: 'overnight-2026-11-21-2315-_2000b_' },
  ])('$id → $want', ({ id, want }) => {
    expect(tmuxSessionName(id)).toBe(want);
    expect(tmuxSessionName(id)).toMatch(/^[\x21-\x7e]+$/);
  });
});

describe('resolveRunName', () => {
  const ids = [
    '2026-11-20-2200-alpha',
    '2026-11-21-2315-survey-crdt',
    '2026-11-21-2315-survey-crdt-2',
    '2026-11-21-2330-beta',
  ];

  test.each<{ name: string; want: string }>([
    // exact wins over a longer match
    { name: '2026-11-21-2315-survey-crdt', want: '2026-11-21-2315-survey-crdt' },
    { name: '2026-11-21-2315-survey-crdt-2', want: '2026-11-21-2315-survey-crdt-2' },
    { name: '2026-11-20', want: '2026-11-20-2200-alpha' },
    { name: '2026-11-21-233', want: '2026-11-21-2330-beta' },
  ])('$name → $want', ({ name, want }) => {
    expect(resolveRunName(name, ids)).toEqual({ id: want });
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

  test.each<{ name: string; among: string[] }>([
    { name: '2026-11-22', among: ids },
    { name: 'surv', among: ids }, // words whole, not a part of one
    { name: 'crdt survey', among: ids }, // words in their order
    { name: '2026-11-21-2315-survey-crdt-3', among: ids },
    { name: 'anything', among: [] },
    { name: '--', among: ids },
  ])('$name matches nothing, and the error says how to name a run', ({ name, among }) => {
    const r = resolveRunName(name, among);
    expect(r).toEqual({ error: expect.stringContaining(`no run matches "${name}"`) });
    expect((r as { error: string }).error).toContain(
      'a run is named by its id, the start of its id, the --name it was given, or words of its id',
    );
  });
});

describe('resolveRunName by the words of its id (its task’s first words)', () => {
  const ids = [
    '2026-11-20-2200-alpha',
    '2026-11-21-2315-survey-crdt-libraries-for-offline-sync',
    '2026-11-21-2330-fix-the-flaky-test',
    '2026-11-22-0100-fix-the-build',
  ];
  test.each<{ handle: string; strict?: boolean; want: object }>([
    {
      handle: 'survey',
      want: {
        id: '2026-11-21-2315-survey-crdt-libraries-for-offline-sync',
        note:
          'taking 2026-11-21-2315-survey-crdt-libraries-for-offline-sync, the one run whose id has ' +
          'the words "survey"',
      },
    },
    { handle: 'Survey', want: { id: '2026-11-21-2315-survey-crdt-libraries-for-offline-sync' } },
    { handle: 'CRDT libraries', want: { id: '2026-11-21-2315-survey-crdt-libraries-for-offline-sync' } },
    { handle: 'flaky', want: { id: '2026-11-21-2330-fix-the-flaky-test' } },
    {
      handle: 'fix',
      want: {
        error:
          '"fix" is in the ids of 2 runs (2026-11-21-2330-fix-the-flaky-test, 2026-11-22-0100-fix-the-build); ' +
          'give more of the id',
      },
    },
    {
      // A command that ends or deletes a run takes none by words.
      handle: 'survey',
      strict: true,
      want: {
        error:
          '"survey" is no run\'s id or name; the one run whose id has those words is ' +
          '2026-11-21-2315-survey-crdt-libraries-for-offline-sync: give its id (or the start of it) to be sure',
      },
    },
  ])('$handle (strict: $strict) → $want', ({ handle, strict, want }) => {
    expect(resolveRunName(handle, ids, { strict: strict ?? false })).toMatchObject(want);
  });
});

describe('resolveRunName by name', () => {
  const ids = [
    '2026-11-20-2200-night',
    '2026-11-21-2315-night',
    '2026-11-21-2315-night-2',
    '2026-11-21-2330-夜間の調査',
    '2026-11-22-0100-nightly-build',
  ];
  const named = (id: string, name: string, hour: number) => ({
    id,
    name,
    startedAt: new Date(Date.UTC(2026, 10, 21, hour)),
  });

  test.each<{ name: string; handle: string; named: ReturnType<typeof named>[]; want: object }>([
    {
      name: 'one run with that name',
      handle: 'night',
      named: [named('2026-11-20-2200-night', 'night', 1)],
      want: { id: '2026-11-20-2200-night' },
    },
    {
      name: 'the name as given, spaces and capitals included',
      handle: 'Nightly Build',
      named: [named('2026-11-22-0100-nightly-build', 'Nightly Build', 1)],
      want: { id: '2026-11-22-0100-nightly-build' },
    },
    {
      name: 'the slug of the name',
      handle: 'nightly-build',
      named: [named('2026-11-22-0100-nightly-build', 'Nightly Build', 1)],
      want: { id: '2026-11-22-0100-nightly-build' },
    },
    {
      name: 'a name beyond ASCII',
      handle: '夜間の調査',
      named: [named('2026-11-21-2330-夜間の調査', '夜間の調査', 1)],
      want: { id: '2026-11-21-2330-夜間の調査' },
    },
    {
      name: 'a full id still wins over a name',
      handle: '2026-11-21-2315-night',
      named: [named('2026-11-21-2315-night-2', '2026-11-21-2315-night', 5)],
      want: { id: '2026-11-21-2315-night' },
    },
  ])('$name → $want.id', ({ handle, named: n, want }) => {
    expect(resolveRunName(handle, ids, { named: n })).toEqual(want);
  });

  test('of several runs with one name the newest wins, and the note says so and names the others', () => {
    const r = resolveRunName('night', ids, {
      named: [
        named('2026-11-20-2200-night', 'night', 1),
        named('2026-11-21-2315-night-2', 'night', 9),
        named('2026-11-21-2315-night', 'night', 8),
      ],
    });
    expect(r).toEqual({
      id: '2026-11-21-2315-night-2',
      note:
        '3 runs are named "night"; this is the newest, 2026-11-21-2315-night-2 ' +
        '(the others: 2026-11-21-2315-night, 2026-11-20-2200-night)',
    });
  });

  test('a name no run was given is matched as words of the ids, and several are listed, not guessed', () => {
    expect(resolveRunName('night', ids, { named: [] })).toEqual({
      error:
        '"night" is in the ids of 3 runs (2026-11-20-2200-night, 2026-11-21-2315-night, ' +
        '2026-11-21-2315-night-2); give more of the id',
    });
  });

  test('the hint names the command as the person runs it', () => {
    expect(resolveRunName('zzz', ids, { cmd: 'npx overnight' })).toEqual({
      error: expect.stringMatching(
        /^no run matches "zzz": a run is named by .* \(see `npx overnight status --all`\)$/,
      ),
    });
  });

  test.each<{ handle: string; want: string[] }>([
    { handle: 'night', want: ['2026-11-20-2200-night', '2026-11-21-2315-night', '2026-11-21-2315-night-2'] },
    { handle: 'Night', want: ['2026-11-20-2200-night', '2026-11-21-2315-night', '2026-11-21-2315-night-2'] },
    { handle: 'nightly build', want: ['2026-11-22-0100-nightly-build'] },
    { handle: '夜間の調査', want: ['2026-11-21-2330-夜間の調査'] },
    { handle: 'nigh', want: [] },
  ])('mayBeNamed($handle) reads only $want', ({ handle, want }) => {
    expect(mayBeNamed(handle, ids)).toEqual(want);
  });
});

describe('wrapperInPanes', () => {
  const id = '2026-11-21-2315-survey-crdt';
  test.each<{ name: string; panes: [string, { alive: boolean }][]; want: boolean }>([
    { name: 'a live pane in the run’s session', panes: [[`overnight-${id}`, { alive: true }]], want: true },
    { name: 'a dead pane (remain-on-exit)', panes: [[`overnight-${id}`, { alive: false }]], want: false },
    {
      name: 'only another run’s session',
      panes: [['overnight-2026-11-21-2316-other', { alive: true }]],
      want: false,
    },
    { name: 'no tmux server', panes: [], want: false },
  ])('$name → $want', ({ panes, want }) => {
    expect(wrapperInPanes(new Map(panes), id)).toBe(want);
  });
});

describe('attachCommand', () => {
  const id = '2026-11-21-2315-survey-crdt';
  const own = '/tmp/tmux-1000/overnight';
  test.each<{ name: string; socket: string | null; want: string }>([
    { name: "overnight's own server", socket: own, want: `tmux -L overnight attach -t overnight-${id}` },
    {
      name: 'a server recorded elsewhere (an older run, another TMUX_TMPDIR)',
      socket: '/tmp/tmux-1000/default',
      want: `tmux -S /tmp/tmux-1000/default attach -t overnight-${id}`,
    },
    {
      name: 'a socket path that needs quoting',
      socket: "/tmp/my dir/it's/overnight",
      want: `tmux -S '/tmp/my dir/it'\\''s/overnight' attach -t overnight-${id}`,
    },
    { name: 'no socket recorded (the oldest runs)', socket: null, want: `tmux attach -t overnight-${id}` },
  ])('$name → $want', ({ socket, want }) => {
    expect(attachCommand(id, socket, own)).toBe(want);
  });

  test("a name beyond ASCII → its session spelled out, on overnight's own server", () => {
    expect(attachCommand('2026-11-21-2315-夜間', own, own)).toBe(
      'tmux -L overnight attach -t overnight-2026-11-21-2315-_591c__9593_',
    );
  });
});

describe('resolveRunName for commands that end or delete a run', () => {
  const ids = ['2026-11-20-2200-flaky', '2026-11-21-2315-flaky', '2026-11-21-2330-survey-crdt'];
  const named = (id: string, hour: number) => ({
    id,
    name: 'flaky',
    startedAt: new Date(Date.UTC(2026, 10, 21, hour)),
  });

  test('a name several runs share is refused, listing every one', () => {
    const r = resolveRunName('flaky', ids, {
      strict: true,
      named: [named('2026-11-20-2200-flaky', 1), named('2026-11-21-2315-flaky', 2)],
    });
    expect(r).toEqual({
      error: expect.stringMatching(
        /^2 runs are named "flaky" \(2026-11-21-2315-flaky, 2026-11-20-2200-flaky\); give the id/,
      ),
    });
  });

  test.each([
    { handle: 'flakey', want: 'flaky' },
    { handle: 'survey-crtd', want: 'survey-crdt' },
    { handle: 'sruvey-crdt', want: 'survey-crdt' },
  ])('a mistyped name "$handle" gets a suggestion', ({ handle, want }) => {
    const r = resolveRunName(handle, ids);
    expect(r).toEqual({ error: expect.stringContaining(`did you mean "${want}"?`) });
  });

  test('a name far from every run gets none', () => {
    const r = resolveRunName('completely-different', ids) as { error: string };
    expect(r.error).not.toContain('did you mean');
  });
});
