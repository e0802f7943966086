// The verdict with the real CLI against the mock API: the agent replaces the whole test file with
// one empty test and never commits. overnight commits the night itself, the final check runs on
// that commit, and every baseline test is accounted for: NOT verified, each one named.
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { makeProject } from '../helpers/calc.js';
import { git } from '../helpers/git.js';
import { waitFor } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { reply, startMockApi, toolResults, type MessagesBody } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const EMPTY = "import test from 'node:test';\ntest('works', () => {});\n";

describe('a verdict that cannot be gamed (real CLI)', () => {
  it('the test file replaced by one empty test, never committed: NOT verified, on the commit overnight made', async ({
    sb,
  }) => {
    assertClaudeInstalled();
    let where = { id: '', workspace: '', worktree: '' };
    const api = await startMockApi((body: MessagesBody) => {
      const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
      if (done === 0) return reply.write(join(where.worktree, 'test', 'math.test.mjs'), EMPTY);
      if (done === 1)
        return reply.write(join(where.workspace, 'REPORT.md'), '# Report\nAll tests pass now.\n');
      return reply.text('Done.');
    });
    try {
      const repo = await makeProject(sb.dir);
      const env = { ...cliEnv(api.url, sb.home), PATH: process.env.PATH, OVERNIGHT_CLAUDE: CLAUDE };
      const r = await sb.run(
        [
          'launch',
          '--json',
          '--duration',
          '10m',
          '--repo',
          repo,
          '--verify',
          'node --test',
          'Make the tests pass',
        ],
        { env },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      where = JSON.parse(r.stdout) as typeof where;
      const done = await waitFor(
        async () => {
          await sb.run(['reconcile', '--retry-lock', '2000'], { env });
          return sb.read(sb.state(where.id, 'DONE'));
        },
        { timeout: 90_000, interval: 500, what: 'DONE' },
      );
      expect(done).toMatch(/NOT verified: gone: adds, subtracts; removed, not fixed: multiplies/);
      const head = await git(repo, 'rev-parse', `overnight/${where.id}`);
      expect(await git(repo, 'log', '-1', '--format=%s', head)).toMatch(/committed for the final check/);
      const result = JSON.parse(sb.read(join(where.workspace, 'result.json')) ?? '{}') as {
        verify: Record<string, unknown>;
      };
      expect(result.verify).toMatchObject({
        verdict: 'not-verified',
        commit: head,
        changedTests: ['test/math.test.mjs'],
      });
      const table = (await sb.run(['status', '--all'], { env })).stdout;
      expect(table).toMatch(/done ✗/);
    } finally {
      await api.close();
    }
  });
});
