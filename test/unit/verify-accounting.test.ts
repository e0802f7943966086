import { describe, expect, test } from 'vitest';

import { account, accountedFor } from '../../src/core/verify/accounting.js';
import { changedTestFiles, scriptsDiffer } from '../../src/core/verify/test-files.js';
import type { ObservedCheck, OutcomeCounts, TestCounts } from '../../src/core/verify/types.js';
import { changedTestsLine, synthesisNote, verdictLine } from '../../src/core/verify/verdict-text.js';
import { counted, verifyResult } from '../../src/core/verify/verdict.js';

// Every baseline test accounted for: what became of each, named; the verdict and its words. The
// rows are the ways a night could game a check, and the honest ones.

type T = Record<string, OutcomeCounts>;
const P: OutcomeCounts = [1, 0, 0];
const F: OutcomeCounts = [0, 1, 0];
const S: OutcomeCounts = [0, 0, 1];

function counts(tests: T | null, over: Partial<TestCounts> = {}): TestCounts {
  const all = Object.entries(tests ?? {});
  const sum = (i: number) => all.reduce((n, [, c]) => n + (c[i] ?? 0), 0);
  return {
    format: 'node-tap',
    passed: sum(0),
    failed: sum(1),
    skipped: sum(2),
    failures: all.filter(([, c]) => c[1] > 0).map(([n]) => n),
    tests,
    ...over,
  };
}

const BASE: T = { 'one is one': P, 'two is two': P, 'three is three': P, 'four is four': F };

function check(
  step: ObservedCheck['step'],
  c: TestCounts | null,
  code: number,
  over: Partial<ObservedCheck> = {},
) {
  return {
    step,
    startedAt: new Date('2026-11-22T07:15:00Z'),
    tries: 1,
    state: 'exited',
    exit: { code, at: new Date('2026-11-22T07:16:00Z') },
    counts: c,
    tail: '',
    ...over,
  } as ObservedCheck;
}

const VERIFY = { command: 'node --test', timeout: 600, budget: 0 };

function verdict(
  final: TestCounts | null,
  code: number,
  base: TestCounts | null = counts(BASE),
  over: Partial<ObservedCheck> = {},
) {
  return verifyResult(
    VERIFY,
    { baseline: check('baseline', base, 1), final: check('final', final, code, over) },
    null,
  );
}

describe('what became of each baseline test', () => {
  test.each<{ name: string; final: T; code: number; verified: boolean; line: RegExp }>([
    {
      name: 'nothing lost, the old failure still there: verified',
      final: BASE,
      code: 1,
      verified: true,
      line: /^verified: 3 passed, 0 new failures \(1 failure was there before the night\)$/,
    },
    {
      name: 'an honest fix: verified',
      final: { ...BASE, 'four is four': P },
      code: 0,
      verified: true,
      line: /^verified: 4 passed, 0 new failures/,
    },
    {
      name: 'the failing test deleted: removed, not fixed',
      final: { 'one is one': P, 'two is two': P, 'three is three': P },
      code: 0,
      verified: false,
      line: /^NOT verified: removed, not fixed: four is four/,
    },
    {
      name: 'a broken test marked skip: skipped',
      final: { ...BASE, 'two is two': S },
      code: 1,
      verified: false,
      line: /^NOT verified: skipped: two is two/,
    },
    {
      name: 'a passing test deleted: gone',
      final: { 'one is one': P, 'two is two': P, 'four is four': F },
      code: 1,
      verified: false,
      line: /gone: three is three/,
    },
    {
      name: 'a test renamed: gone, named, not hidden',
      final: { 'one is one': P, 'two is two': P, 'three equals three': P, 'four is four': F },
      code: 1,
      verified: false,
      line: /gone: three is three/,
    },
    {
      name: 'the whole file replaced by one empty test',
      final: { works: P },
      code: 0,
      verified: false,
      line: /gone: one is one, two is two, three is three; removed, not fixed: four is four/,
    },
    {
      name: 'a new failure',
      final: { ...BASE, 'two is two': F },
      code: 1,
      verified: false,
      line: /^NOT verified: 1 new failure: two is two/,
    },
    {
      name: 'a new test that fails',
      final: { ...BASE, five: F },
      code: 1,
      verified: false,
      line: /1 new failure: five/,
    },
  ])('$name', ({ final, code, verified, line }) => {
    const v = verdict(counts(final), code);
    expect(v.verdict).toBe(verified ? 'verified' : 'not-verified');
    expect(v.basis).toBe('tests');
    expect(verdictLine(v)).toMatch(line);
    expect(counted(v)).toBe(verified);
  });

  test('names that repeat (a `works` in two files): one of them gone is seen', () => {
    const a = account(counts({ works: [2, 0, 0] }), counts({ works: [1, 0, 0] }));
    expect(a).toMatchObject({ goneCount: 1, gone: ['works'] });
    expect(accountedFor(a)).toBe(false);
  });

  test('by counts where a run names only failures: "passed 212, now 0"', () => {
    const base = counts(null, { passed: 212, failed: 0, skipped: 0 });
    const v = verdict(counts(null, { passed: 0, failed: 0, skipped: 0, format: 'vitest' }), 0, base);
    expect(v).toMatchObject({ verdict: 'not-verified', basis: 'counts' });
    expect(verdictLine(v)).toMatch(/gone: 212; passed 212, now 0/);
  });

  test('skipped by count', () => {
    const base = counts(null, { passed: 5, failed: 0, skipped: 0 });
    const v = verdict(counts(null, { passed: 4, failed: 0, skipped: 1 }), 0, base);
    expect(verdictLine(v)).toMatch(/skipped: 1/);
  });
});

describe('verdicts without counts', () => {
  test('a test script made `exit 0`: the baseline named tests, the final none: NOT verified', () => {
    const v = verdict(null, 0);
    expect(v.verdict).toBe('not-verified');
    expect(verdictLine(v)).toMatch(/names no tests overnight can read, though the baseline's named 4/);
  });
  test('no runner overnight reads, before or after: verified by exit code alone, no ✓', () => {
    const v = verdict(null, 0, null);
    expect(v).toMatchObject({ verdict: 'verified', basis: 'exit-code' });
    expect(counted(v)).toBe(false);
    expect(verdictLine(v)).toMatch(/^verified by exit code alone/);
  });
  test('nothing on the branch: unchanged, never a success', () => {
    const v = verdict(counts(BASE), 1, counts(BASE), { unchanged: true, commit: 'a'.repeat(40) });
    expect(v.verdict).toBe('unchanged');
    expect(counted(v)).toBe(false);
    expect(verdictLine(v)).toMatch(/^unchanged/);
    expect(synthesisNote(v)).toMatch(/left nothing on the branch/);
  });
  test('work that could not be committed: the check is no verdict', () => {
    const v = verdict(counts(BASE), 1, counts(BASE), { undelivered: 'the worktree is not on overnight/x' });
    expect(v).toMatchObject({ verdict: 'error', error: /could not be committed .* not on overnight\/x/ });
  });
  test('the verdict names its commit and the tests the night changed', () => {
    const v = verdict(counts(BASE), 1, counts(BASE), {
      commit: 'b'.repeat(40),
      changedTests: ['test/a.test.mjs'],
    });
    expect(v.commit).toBe('b'.repeat(40));
    expect(changedTestsLine(v)).toBe('the night changed its tests: test/a.test.mjs');
    expect(synthesisNote(v)).toMatch(/Say plainly in the report that the night changed its tests/);
  });
});

describe('which changed files are tests', () => {
  test.each([
    ['test/math.test.mjs', true],
    ['src/math.mjs', false],
    ['lib/__tests__/x.js', true],
    ['a/b.spec.ts', true],
    ['tests/test_api.py', true],
    ['conftest.py', true],
    ['pkg/thing_test.go', true],
    ['vitest.config.ts', true],
    ['jest.config.js', true],
    ['pyproject.toml', true],
    ['Makefile', true],
    ['scripts/run-checks.sh', true],
    ['README.md', false],
  ])('%s → %s', (path, want) => {
    const got = changedTestFiles([path], 'bash scripts/run-checks.sh', () => false);
    expect(got.length > 0).toBe(want);
  });
  test('package.json only when its scripts changed', () => {
    expect(changedTestFiles(['package.json'], 'npm test', () => true)).toEqual(['package.json (scripts)']);
    expect(changedTestFiles(['package.json'], 'npm test', () => false)).toEqual([]);
    expect(scriptsDiffer('{"scripts":{"test":"node --test"}}', '{"scripts":{"test":"exit 0"}}')).toBe(true);
    expect(
      scriptsDiffer('{"scripts":{"test":"x"},"version":"1"}', '{"version":"2","scripts":{"test":"x"}}'),
    ).toBe(false);
    expect(scriptsDiffer('{', '{}')).toBe(true);
  });
});
