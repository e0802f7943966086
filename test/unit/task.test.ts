import { describe, expect, test } from 'vitest';

import type { Io } from '../../src/app/io.js';
import { buildCli } from '../../src/cli.js';
import {
  endTimeProblem,
  LAUNCH_OPTIONS,
  optionsInTask,
  taskHasMore,
  taskHeadline,
  taskTitle,
} from '../../src/core/run/task.js';

describe('taskHasMore', () => {
  test.each<{ name: string; task: string; want: boolean }>([
    { name: 'one line', task: 'Survey CRDT libraries', want: false },
    { name: 'one line with blanks around it', task: '\n  Survey  \n\n', want: false },
    { name: 'a second line', task: 'Fix\nthe tests', want: true },
    { name: 'a first line longer than the headline', task: 'x'.repeat(101), want: true },
  ])('$name → $want', ({ task, want }) => {
    expect(taskHasMore(task)).toBe(want);
  });
});

describe('taskTitle', () => {
  test.each<{ name: string; task: string; want: string }>([
    { name: 'a plain first line', task: 'Survey CRDT libraries\nmore', want: 'Survey CRDT libraries' },
    {
      name: 'a Markdown heading',
      task: '# Find the flaky test\n\nIt fails on CI.',
      want: 'Find the flaky test',
    },
    { name: 'a deeper heading after blank lines', task: '\n\n###   Fix it\n', want: 'Fix it' },
    { name: 'a closing sequence', task: '## Fix it ##', want: 'Fix it' },
    { name: 'a # inside the title stays', task: '# Fix issue #12', want: 'Fix issue #12' },
    { name: 'a tag, not a heading', task: '#hashtag of a task', want: '#hashtag of a task' },
    { name: 'seven marks are no heading', task: '####### x', want: '####### x' },
    { name: 'a heading of marks alone', task: '# ##', want: '# ##' },
  ])('$name', ({ task, want }) => {
    expect(taskTitle(task)).toBe(want);
  });

  test('the headline of a heading has no #, and a long one is cut in linear time', () => {
    expect(taskHeadline('# Find the flaky test\nbody')).toBe('Find the flaky test');
    const long = `# ${' '.repeat(200_000)}x${' '.repeat(200_000)}#`;
    expect(taskHeadline(long)).toBe('x');
  });
});

describe('optionsInTask', () => {
  test.each<{ name: string; words: string[]; want: string[] }>([
    { name: 'a plain task', words: ['Fix', 'the', 'tests'], want: [] },
    { name: 'flags after --', words: ['-x', '--duration', '2m'], want: ['--duration'] },
    { name: 'a flag with =', words: ['survey', '--until=07:00'], want: ['--until'] },
    {
      name: 'several, once each',
      words: ['--repo', '.', '--repo', '--name', 'n'],
      want: ['--repo', '--name'],
    },
    { name: 'inside a quoted task', words: ['fix the --duration parsing'], want: [] },
    { name: 'options of other programs', words: ['run', 'npm', 'test', '--watch'], want: [] },
  ])('$name → $want', ({ words, want }) => {
    expect(optionsInTask(words)).toEqual(want);
  });

  test('names every long option of launch, and nothing else', () => {
    const io: Io = { stdout: () => {}, stderr: () => {}, env: {}, now: () => new Date(0) };
    const launch = buildCli(io, () => {}).commands.find((c) => c.name() === 'launch');
    const longs = launch?.options.map((o) => o.long).filter((l): l is string => !!l);
    expect([...LAUNCH_OPTIONS].sort()).toEqual([...(longs ?? [])].sort());
  });
});

describe('endTimeProblem', () => {
  const h = 3600;
  test.each<{ name: string; seconds: number; long: boolean; want: string | undefined }>([
    { name: '8 hours', seconds: 8 * h, long: false, want: undefined },
    { name: 'exactly 48 hours', seconds: 48 * h, long: false, want: undefined },
    {
      name: '48 hours and a second',
      seconds: 48 * h + 1,
      long: false,
      want: '--duration X is 2d1s away, more than 2d; add --long if you mean it',
    },
    { name: '72 hours with --long', seconds: 72 * h, long: true, want: undefined },
    {
      name: '99999 hours',
      seconds: 99999 * h,
      long: false,
      want: '--duration X is 4166d15h away; a run may last at most 31d, even with --long',
    },
    {
      name: '32 days with --long',
      seconds: 32 * 24 * h,
      long: true,
      want: '--duration X is 32d away; a run may last at most 31d, even with --long',
    },
  ])('$name → $want', ({ seconds, long, want }) => {
    expect(endTimeProblem(seconds, long, '--duration X')).toBe(want);
  });
});
