// A verdict that cannot be gamed: the ways a night could make a check say "verified" without
// earning it, each with the fake agent on a real repository and overnight's own check (baseline on
// the base commit, final check on the commit overnight makes of the night). Each gets its true
// verdict, on the dashboard and in result.json; an honest fix and an honest rename get theirs.
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { makeProject, MATH, TESTS } from '../helpers/calc.js';
import { git } from '../helpers/git.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

async function night(sb: Sandbox, behaviour: Record<string, unknown>, extra: Record<string, string> = {}) {
  const repo = await makeProject(sb.dir, extra);
  sb.setBehaviour({ work: 1, report: true, ...behaviour });
  const r = await sb.run([
    'launch',
    '--json',
    '--repo',
    repo,
    '--verify',
    'node --test',
    '--duration',
    '3s',
    'Fix the maths',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  const run = JSON.parse(r.stdout) as { id: string; workspace: string };
  const done = await waitFor(
    async () => {
      await sb.run(['reconcile', '--retry-lock', '2000']);
      return sb.read(join(run.workspace, 'DONE'));
    },
    { timeout: 40_000, interval: 300, what: 'DONE' },
  );
  const result = JSON.parse(
    await waitFor(() => sb.read(join(run.workspace, 'result.json')), { what: 'result.json' }),
  ) as {
    verify: Record<string, unknown>;
  };
  const table = (await sb.run(['status', '--all'])).stdout;
  const details = (await sb.run(['status', run.id])).stdout;
  return { repo, run, done, verify: result.verify, table, details };
}

const WITHOUT = (name: string) =>
  TESTS.split('\n')
    .filter((l) => !l.includes(`'${name}'`))
    .join('\n');

describe('a verdict that cannot be gamed', () => {
  it('the failing test deleted and committed: NOT verified, "removed, not fixed"', async ({ sb }) => {
    const { done, verify, table } = await night(sb, {
      plant: { 'test/math.test.mjs': WITHOUT('multiplies') },
      commit: 'Tidy tests',
    });
    expect(done).toMatch(/NOT verified: removed, not fixed: multiplies/);
    expect(verify).toMatchObject({
      verdict: 'not-verified',
      basis: 'tests',
      changedTests: ['test/math.test.mjs'],
    });
    expect(table).toMatch(/done ✗/);
  });

  it('the code broken and its test marked skip: NOT verified, "skipped: subtracts"', async ({ sb }) => {
    const skipped = TESTS.replace("test('subtracts', ", "test('subtracts', { skip: 'flaky' }, ");
    const { done, details } = await night(sb, {
      plant: { 'math.mjs': MATH('a + b', 'a + b'), 'test/math.test.mjs': skipped },
      commit: 'Refactor',
    });
    expect(done).toMatch(/NOT verified: skipped: subtracts/);
    expect(details).toMatch(/lost: +skipped: subtracts/);
    expect(details).toMatch(/tests: +the night changed its tests: test\/math.test.mjs/);
  });

  it('the test file replaced by one empty test, never committed: committed by overnight, NOT verified', async ({
    sb,
  }) => {
    const empty = "import test from 'node:test';\ntest('works', () => {});\n";
    const { repo, run, done, verify } = await night(sb, { plant: { 'test/math.test.mjs': empty } });
    // The check ran on the commit overnight made of the night, which the branch now holds.
    const head = await git(repo, 'rev-parse', `overnight/${run.id}`);
    expect(verify.commit).toBe(head);
    expect(await git(repo, 'log', '-1', '--format=%s', head)).toMatch(/committed for the final check/);
    expect(done).toMatch(/NOT verified: gone: adds, subtracts; removed, not fixed: multiplies/);
  });

  it('nothing done at all: unchanged, not ✓', async ({ sb }) => {
    const { done, verify, table } = await night(sb, {});
    expect(verify.verdict).toBe('unchanged');
    expect(done).toMatch(/unchanged: the night left nothing on the branch/);
    expect(table).toMatch(/done =/);
    expect(table).toMatch(/needs you/);
  });

  it('the test script made `exit 0`: the tests no longer counted, NOT verified', async ({ sb }) => {
    const pkg = (test: string) => JSON.stringify({ type: 'module', scripts: { test } });
    const repo = await makeProject(sb.dir, { 'package.json': pkg('node --test') });
    sb.setBehaviour({
      work: 1,
      report: true,
      plant: { 'package.json': pkg('exit 0') },
      commit: 'Speed up the tests',
    });
    const r = await sb.run([
      'launch',
      '--json',
      '--repo',
      repo,
      '--verify',
      'npm test',
      '--duration',
      '3s',
      'Go',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { id: string; workspace: string };
    const done = await waitFor(
      async () => {
        await sb.run(['reconcile', '--retry-lock', '2000']);
        return sb.read(join(run.workspace, 'DONE'));
      },
      { timeout: 40_000, interval: 300, what: 'DONE' },
    );
    expect(done).toMatch(/NOT verified: .*names no tests overnight can read, though the baseline's named 3/);
    const details = (await sb.run(['status', run.id])).stdout;
    expect(details).toMatch(/tests: +the night changed its tests: package.json \(scripts\)/);
  });

  it('an honest fix: verified ✓, on the commit overnight names', async ({ sb }) => {
    const { done, verify, table } = await night(sb, {
      plant: { 'math.mjs': MATH('a - b', 'a * b') },
      commit: 'Fix mul',
    });
    expect(done).toMatch(/verified: 3 passed, 0 new failures/);
    expect(verify).toMatchObject({ verdict: 'verified', basis: 'tests', changedTests: [] });
    expect(table).toMatch(/done ✓/);
  });

  it('an honest rename of a test: named as gone, the new name beside it, NOT verified', async ({ sb }) => {
    const renamed = TESTS.replace("test('adds'", "test('adds two numbers'");
    const { done, verify } = await night(sb, {
      plant: { 'test/math.test.mjs': renamed },
      commit: 'Clearer test names',
    });
    expect(done).toMatch(/NOT verified: gone: adds/);
    expect(verify).toMatchObject({ accounting: { goneCount: 1, added: 1 } });
  });
});
