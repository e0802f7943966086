import { describe, expect, test } from 'vitest';

import { repoDetails, type RepoRow } from '../../src/core/status/repo.js';
import { REPO } from './builders.js';

const ROW: RepoRow = { repo: REPO.path, branch: REPO.branch, base: REPO.base, worktree: REPO.worktree };
const commit = (n: number) => ({
  sha: `${String(n).padStart(2, '0')}${'a'.repeat(38)}`,
  subject: `Commit ${n}`,
});
const CLEAN = { diffstat: [], worktree: 0 } as const;
const STAT = [
  ' src/a.ts | 10 ++++++----',
  ' src/b.ts |  2 +-',
  ' 2 files changed, 7 insertions(+), 5 deletions(-)',
];

describe('repoDetails', () => {
  test('what the night changed: repository, branch from its base, commits newest first, the diffstat', () => {
    expect(repoDetails({ ...ROW, commits: [commit(2), commit(1)] }, { diffstat: STAT, worktree: 0 })).toEqual(
      [
        `repo:       ${REPO.path}`,
        `branch:     ${REPO.branch} from 48e2c9b682ee, 2 commits`,
        `worktree:   ${REPO.worktree}`,
        'commits:    02aaaaaaaaaa Commit 2',
        '            01aaaaaaaaaa Commit 1',
        'changes:    2 files changed, 7 insertions(+), 5 deletions(-)',
        '            src/a.ts | 10 ++++++----',
        '            src/b.ts |  2 +-',
      ],
    );
  });

  test.each<{ name: string; row: RepoRow; want: string }>([
    { name: 'no commits yet', row: { ...ROW, commits: [] }, want: '0 commits' },
    { name: 'one commit', row: { ...ROW, commits: [commit(1)] }, want: '1 commit' },
    {
      name: 'a branch git cannot read',
      row: { ...ROW, commits: null },
      want: 'the branch cannot be read (deleted, or the repository moved?)',
    },
  ])('$name → $want', ({ row, want }) => {
    expect(repoDetails(row, CLEAN)[1]).toBe(`branch:     ${REPO.branch} from 48e2c9b682ee, ${want}`);
  });

  test('ten commits are listed, the rest counted', () => {
    const lines = repoDetails(
      { ...ROW, commits: Array.from({ length: 13 }, (_, i) => commit(13 - i)) },
      CLEAN,
    );
    expect(lines.filter((l) => / Commit \d+$/.test(l))).toHaveLength(10);
    expect(lines.at(-1)).toBe('            … and 3 more');
  });

  test('a subject written by the agent cannot drive the terminal', () => {
    const lines = repoDetails(
      { ...ROW, commits: [{ sha: 'f'.repeat(40), subject: 'Fix \u001b]0;pwned\u0007' }] },
      CLEAN,
    );
    expect(lines.join('\n')).not.toContain('\u001b');
    expect(lines.join('\n')).not.toContain('\u0007');
    expect(lines).toContain(`commits:    ${'f'.repeat(12)} Fix \\x1b]0;pwned\\x07`);
  });

  test.each<{ worktree: number | 'gone'; want: string }>([
    { worktree: 0, want: `worktree:   ${REPO.worktree}` },
    { worktree: 1, want: `worktree:   ${REPO.worktree} (1 uncommitted change, not on the branch)` },
    { worktree: 3, want: `worktree:   ${REPO.worktree} (3 uncommitted changes, not on the branch)` },
    { worktree: 'gone', want: `worktree:   ${REPO.worktree} (no longer there)` },
  ])('a worktree with $worktree uncommitted changes → $want', ({ worktree, want }) => {
    expect(repoDetails({ ...ROW, commits: [] }, { diffstat: [], worktree })[2]).toBe(want);
  });

  test('a plain run has no repository lines', () => {
    expect(repoDetails({}, { diffstat: STAT, worktree: 0 })).toEqual([]);
  });

  test('a run that handed its branch on to a follow-up: its part of the branch ends there', () => {
    const tip = 'c'.repeat(40);
    expect(repoDetails({ ...ROW, handedOver: tip, commits: [commit(1)] }, CLEAN)[1]).toBe(
      `branch:     ${REPO.branch} from 48e2c9b682ee to cccccccccccc (then carried on by the next night), 1 commit`,
    );
  });
});
