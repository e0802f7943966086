// The real Claude Code CLI on a repository run, against the mock API: a real Write in the
// worktree, a real `git add && git commit` through Bash with the default tools, the report in
// the run's directory, the briefing in the system prompt, and the task in no process's argv.
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { checkoutState, git, makeRepo } from '../helpers/git.js';
import { allCmdlines, waitFor } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { messageText, reply, startMockApi, toolResults, type MessagesBody } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const MARKER = 'task-marker-7f3a9c';
const TASK = `Fix the greeting in app.js (${MARKER})`;

describe('a repository run with the real claude binary', () => {
  it('writes and commits on its branch in the worktree, reports in the run directory; the checkout is untouched', async ({
    sb,
  }) => {
    assertClaudeInstalled();
    const repo = await makeRepo(sb.dir);
    writeFileSync(join(repo, 'CLAUDE.md'), '# Project rules\n\nPROJECT-RULES-MARKER: keep it small.\n');
    await git(repo, 'commit', '-q', '-m', 'Project rules', 'CLAUDE.md');
    const before = await checkoutState(repo);

    let where = { worktree: '', workspace: '' };
    const seenInArgv: string[] = [];
    const api = await startMockApi((body: MessagesBody) => {
      const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
      if (done === 0) {
        // The agent is alive and waiting for this answer: no process may carry the task in argv.
        seenInArgv.push(
          ...allCmdlines()
            .filter((p) => p.cmdline.includes(MARKER))
            .map((p) => p.cmdline),
        );
        return reply.write(join(where.worktree, 'app.js'), 'console.log("good night");\n');
      }
      if (done === 1)
        return reply.toolUse('Bash', {
          command: 'git add app.js && git commit -m "Fix the greeting"',
          description: 'Commit the fix',
        });
      if (done === 2)
        return reply.write(join(where.workspace, 'REPORT.md'), '# Report\n\nFixed the greeting.\n');
      return reply.text('Done.');
    });
    try {
      const env = {
        ...cliEnv(api.url, sb.home),
        PATH: process.env.PATH,
        OVERNIGHT_CLAUDE: CLAUDE,
        CLAUDE_CODE_OAUTH_TOKEN: undefined,
        ANTHROPIC_AUTH_TOKEN: undefined,
      };
      const r = await sb.run(['launch', '--json', '--repo', repo, '--duration', '10m', TASK], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      const run = JSON.parse(r.stdout) as typeof where & { id: string; branch: string; base: string };
      where = run;

      const done = await waitFor(() => sb.read(join(run.workspace, 'DONE')), {
        timeout: 40_000,
        what: 'DONE',
      });
      await sb.quiesce();
      expect(done).toMatch(/^finished: REPORT\.md written/);
      expect(seenInArgv).toEqual([]);

      // The briefing reached the model in the system prompt; the repository's CLAUDE.md as project rules.
      const first = api.mainRequests()[0]?.body as MessagesBody;
      const system = JSON.stringify(first.system);
      expect(system).toContain('# Overnight run');
      expect(system).toContain(MARKER);
      expect(system).toContain(run.worktree);
      expect(system).toContain(`${run.workspace}/REPORT.md`);
      const firstUser = messageText((first.messages ?? [])[0] as never);
      expect(firstUser).toContain('PROJECT-RULES-MARKER');
      expect(JSON.stringify(first.messages)).toContain(
        `Additional working directories:\\n  - ${run.workspace}`,
      );

      // The Bash commit was allowed by the default tools and ran on the run's branch.
      const bash = toolResults(api.mainRequests()[2]?.body ?? null);
      expect(JSON.stringify(bash)).toContain('Fix the greeting');
      expect(JSON.stringify(bash)).not.toMatch(/requires approval|haven't granted/);
      expect(await git(repo, 'log', '--format=%s', `${run.base}..${run.branch}`)).toBe('Fix the greeting');
      expect(await git(repo, 'show', `${run.branch}:app.js`)).toBe('console.log("good night");');
      expect(await git(repo, 'ls-tree', '-r', '--name-only', run.branch)).not.toMatch(
        /REPORT|questions|findings/,
      );
      expect(readFileSync(join(run.workspace, 'REPORT.md'), 'utf8')).toContain('Fixed the greeting');
      expect(existsSync(join(run.worktree, 'REPORT.md'))).toBe(false);
      expect(realpathSync(run.worktree)).toBe(join(realpathSync(sb.runs), 'worktrees', run.id));

      expect(await checkoutState(repo)).toEqual(before);
      const [row] = await sb.status<{
        commits: { subject: string }[];
      }>([run.id], { env });
      expect(row?.commits.map((c) => c.subject)).toEqual(['Fix the greeting']);
    } finally {
      await api.close();
    }
  });
});
