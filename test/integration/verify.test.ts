import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { makeProject, MATH } from '../helpers/calc.js';
import { ON_CI } from '../helpers/ci.js';
import { alive, waitFor, type Sandbox } from '../helpers/harness.js';
import { validate } from '../helpers/json-schema.js';
import { it } from '../helpers/sandbox.js';

const RESULT_SCHEMA = JSON.parse(
  readFileSync(new URL('../../schema/result.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

// Verified nights: a small real project with a `node --test` suite, the fake agent, and the check
// overnight runs itself (its baseline on the base commit, then at the end).

/** Passes run (as cron would) until the run is DONE. */
async function untilDone(sb: Sandbox, workspace: string, timeout = 40_000): Promise<string> {
  return waitFor(
    async () => {
      await sb.run(['reconcile', '--retry-lock', '2000']);
      return sb.read(join(workspace, 'DONE'));
    },
    { timeout, interval: 300, what: 'DONE' },
  );
}

async function launchRepo(sb: Sandbox, repo: string, flags: string[] = []) {
  const r = await sb.run([
    'launch',
    '--json',
    '--repo',
    repo,
    '--verify',
    'node --test',
    ...flags,
    'Fix the maths',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return { ...(JSON.parse(r.stdout) as { id: string; workspace: string }), stderr: r.stderr };
}

/** multiplies failing, as `node --test` says it: TAP into a file up to Node 22, its spec reporter since 23. */
const FAILS_MULTIPLIES = /^(?:not ok \d+ - multiplies|✖ multiplies \()/m;

describe('a run with a check', () => {
  it('takes the baseline first; an agent that breaks another test is NOT verified, though its report claims success', async ({
    sb,
  }) => {
    const repo = await makeProject(sb.dir);
    const question = '\n## Keep the old API?\n- Best guess: yes\n- Priority: high\n';
    sb.setBehaviour([
      { plant: { 'math.mjs': MATH('a + b', 'a * b') }, questions: question, work: 30 },
      // What the night left uncommitted, overnight commits for the final check; the synthesis writes
      // the report, and cannot change the branch that was checked.
      { report: true },
    ]);
    const run = await launchRepo(sb, repo, ['--duration', '8s']);
    // The baseline ran on the base commit before the first session: multiplies fails there.
    const baseline = await waitFor(() => sb.read(sb.state(run.id, 'check-baseline.exit')), {
      what: 'baseline',
    });
    expect(sb.read(sb.state(run.id, 'check-baseline.log'))).toMatch(FAILS_MULTIPLIES);
    const first = await waitFor(() => sb.calls()[0], { what: 'first session' });
    expect(first.at).toBeGreaterThanOrEqual(Number(baseline.split(' ')[1]) * 1000 - 1000);
    // With the sandbox the agent has Bash (confined), so no rule for the check's command is added.
    expect(first.argv).toContain('Bash');
    expect(first.argv.filter((a) => a.startsWith('Bash('))).toEqual([]);

    const done = await untilDone(sb, run.workspace);
    expect(done).toMatch(/NOT verified: 1 new failure: subtracts \(1 failure was there before the night\)/);
    // The synthesis heard the verdict.
    const synthesis = sb.calls().at(-1);
    expect(synthesis?.stdin).toMatch(/says: NOT verified: 1 new failure: subtracts.*do not claim success/s);
    expect(sb.read(join(run.workspace, 'REPORT.md'))).toMatch(/All done/);

    // result.json, beside the report, in its documented schema; status --json carries the same verify.
    const text = await waitFor(() => sb.read(join(run.workspace, 'result.json')), { what: 'result.json' });
    const result = JSON.parse(text) as Record<string, unknown>;
    expect(result).toMatchObject({
      schema: 2,
      id: run.id,
      state: 'done',
      reason: expect.stringMatching(/NOT verified/),
      verify: {
        command: 'node --test',
        verdict: 'not-verified',
        baseline: { passed: 2, failed: 1, failures: ['multiplies'] },
        final: { passed: 2, failed: 1, failures: ['subtracts'] },
        newFailures: ['subtracts'],
        output: sb.state(run.id, 'check-final.log'),
      },
      repo: {
        path: repo,
        branch: `overnight/${run.id}`,
        commits: [
          {
            sha: expect.stringMatching(/^[0-9a-f]{40}$/),
            subject: "overnight: the night's uncommitted work, committed for the final check",
          },
        ],
        diffstat: { files: 1, insertions: 2, deletions: 2 },
      },
      restarts: 0,
      openQuestions: { high: ['Keep the old API?'], medium: [], low: [], unknown: [] },
      report: join(run.workspace, 'REPORT.md'),
    });
    expect(result.secondsWorked).toBeGreaterThan(0);
    expect(validate(RESULT_SCHEMA, result)).toEqual([]);
    for (const key of ['sessions', 'costUsd', 'startedAt', 'endsAt', 'questions'])
      expect(result).toHaveProperty(key);
    expect((await sb.status([run.id]))[0]).toMatchObject({ verify: result.verify });
    // status <run>: the failing tests, the night's new ones first, and where the output is.
    const shown = (await sb.run(['status', run.id])).stdout;
    expect(shown).toMatch(
      /check: +NOT verified: 1 new failure.*\n {2}command: {2}node --test\n {2}on: +[0-9a-f]{12} .*\n {2}failing: {2}subtracts \(new\)\n/,
    );
    expect(shown).toContain(`output:   ${sb.state(run.id, 'check-final.log')}`);
    // The notification said the verdict on a line of its own, as a needs-you event.
    const finish = (sb.read(sb.state(run.id, 'events.jsonl')) ?? '')
      .split('\n')
      .find((l) => l.includes('"action":"finish"'));
    expect(JSON.parse(finish ?? '{}')).toMatchObject({
      verdict: 'not-verified',
      check: expect.stringMatching(/^NOT verified: 1 new failure/),
    });
  });

  it('an agent that makes every test pass is verified', async ({ sb }) => {
    const repo = await makeProject(sb.dir);
    sb.setBehaviour([{ plant: { 'math.mjs': MATH('a - b', 'a * b') }, work: 30 }, { report: true }]);
    const run = await launchRepo(sb, repo, ['--duration', '8s']);
    const done = await untilDone(sb, run.workspace);
    expect(done).toMatch(/verified: 3 passed, 0 new failures \(1 failure was there before the night\)/);
    expect(sb.calls().at(-1)?.stdin).toMatch(/passes \(verified: 3 passed/);
  });

  it('with verify_budget, a failing check gets one fix session told the failures, then the check again', async ({
    sb,
  }) => {
    const repo = await makeProject(sb.dir);
    sb.setBehaviour([
      { plant: { 'math.mjs': MATH('a + b', 'a + b') }, work: 30 },
      { plant: { 'math.mjs': MATH('a - b', 'a + b') }, work: 1 },
      { report: true },
    ]);
    const run = await launchRepo(sb, repo, ['--duration', '8s', '--verify-budget', '2m']);
    const done = await untilDone(sb, run.workspace, 60_000);
    expect(done).toMatch(/verified: 2 passed, 0 new failures \(1 failure was there before the night\)/);
    const [, fix, synthesis, ...more] = sb.calls();
    expect(more).toEqual([]);
    // The fix session resumed the conversation, told the failures and where the output is.
    expect(fix?.argv).toContain('--resume');
    expect(fix?.stdin).toMatch(/shows 1 new failure:\n- subtracts\n/);
    expect(fix?.stdin).toContain(sb.state(run.id, 'check-final.log'));
    expect(synthesis?.stdin).toMatch(/passes \(verified: 2 passed/);
    // The check ran again after the fix (multiplies, broken before the night, still fails it).
    expect(sb.read(sb.state(run.id, 'check-recheck.log'))).toMatch(FAILS_MULTIPLIES);
    const events = sb.read(sb.state(run.id, 'events.jsonl')) ?? '';
    expect(events).toMatch(/"cause":"verify-fix".*"mode":"fix"/);
    const result = JSON.parse(sb.read(join(run.workspace, 'result.json')) ?? '{}') as { verify?: unknown };
    expect(result.verify).toMatchObject({
      verdict: 'verified',
      output: sb.state(run.id, 'check-recheck.log'),
    });
  });

  it('a baseline that cannot run is said at launch with its last lines', async ({ sb }) => {
    const repo = await makeProject(sb.dir);
    sb.setBehaviour({ work: 30 });
    const r = await sb.run(['launch', '--json', '--repo', repo, '--verify', 'no-such-tool --all', 'Fix it']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the check `no-such-tool --all` cannot run on the base commit: .*exit 127/);
    expect(r.stderr).toMatch(/not found/);
  });

  it('a check that hangs is killed at verify_timeout and reported', async ({ sb }) => {
    sb.setBehaviour([{ work: 30 }, { report: true }]);
    const run = await sb.launch('Survey', [
      '--duration',
      '3s',
      '--verify',
      'sleep 600',
      '--verify-timeout',
      '2s',
    ]);
    const done = await untilDone(sb, run.workspace);
    expect(done).toMatch(/check error: the check was killed at verify_timeout \(2s\)/);
    expect(sb.calls().at(-1)?.stdin).toMatch(/gave no result: the check was killed at verify_timeout/);
    // The check runs in bubblewrap, recorded as the one process whose namespace holds it all.
    const group = Number(/^process (\d+)$/.exec(sb.read(sb.state(run.id, 'check-final.group')) ?? '')?.[1]);
    expect(alive(group)).toBe(false);
  });

  it('a check whose process is killed (kill -9) is started again once and judged', async ({ sb }) => {
    sb.setBehaviour([{ work: 30 }, { report: true }]);
    // The first try waits to be killed; the second answers at once.
    // The check may write only where it starts (the run's directory): its mark goes there.
    const cmd = `if [ -e check-ran ]; then printf '# pass 4\\n# fail 0\\n'; else : > check-ran; sleep 600; fi`;
    const run = await sb.launch('Survey', ['--duration', '3s', '--verify', cmd]);
    const ran = join(run.workspace, 'check-ran');
    const pidText = await waitFor(
      async () => {
        await sb.run(['reconcile', '--retry-lock', '2000']);
        // Killed only once its first try has marked itself: killed before, the second would wait too.
        return existsSync(ran) ? sb.read(sb.state(run.id, 'check-final.pid')) : null;
      },
      { timeout: 20_000, interval: 300, what: 'the final check running' },
    );
    process.kill(Number(pidText.split(' ')[0]), 'SIGKILL');
    const done = await untilDone(sb, run.workspace);
    expect(done).toMatch(/verified: 4 passed, 0 new failures/);
    expect(JSON.parse(sb.read(sb.state(run.id, 'check-final.json')) ?? '{}')).toMatchObject({ tries: 2 });
    expect(sb.read(sb.state(run.id, 'events.jsonl'))).toMatch(/"action":"check".*"again":true/);
  });

  it("a check's watchdog ends with its check under dash: a night past verify_timeout blames nothing old", async ({
    sb,
  }) => {
    // Debian's /bin/sh is dash, whose `set -m` does nothing without a terminal: the case that broke.
    if (ON_CI) expect(realpathSync('/bin/sh')).toMatch(/dash$/);
    const repo = await makeProject(sb.dir);
    // The agent changes nothing, and works past verify_timeout before the final check.
    sb.setBehaviour({ work: 5, report: true, commit: 'Notes' });
    const run = await launchRepo(sb, repo, ['--verify-timeout', '2s', '--duration', '8s']);
    const watchdog = await waitFor(() => sb.read(sb.state(run.id, 'check-baseline.watchdog')), {
      what: 'the baseline watchdog',
    });
    await waitFor(() => sb.read(sb.state(run.id, 'check-baseline.exit')), { what: 'the baseline' });
    const pid = Number(/(\d+)/.exec(watchdog)?.[1]);
    await waitFor(() => !alive(pid), { timeout: 1_500, what: 'the watchdog gone with its check' });
    const done = await untilDone(sb, run.workspace);
    expect(existsSync(sb.state(run.id, 'check-baseline.timeout'))).toBe(false);
    expect(done).toMatch(/verified: 2 passed, 0 new failures/);
    expect(done).not.toMatch(/new failure: multiplies/);
  });
});
