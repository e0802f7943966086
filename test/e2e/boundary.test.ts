// The trust boundary with the real Claude Code CLI and overnight's default flags, against the mock
// API: the agent asks (by Write tool calls) to write into overnight's records, into the person's
// home, into the run's directory and (on a repository run) into its worktree. The first two are
// refused by the CLI's own permissions, the others allowed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { makeRepo } from '../helpers/git.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { reply, startMockApi, toolResults, type MessagesBody } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

interface Where {
  id: string;
  workspace: string;
  worktree?: string;
}

/** Each Write the agent asks for, in order, then the report, then the end of its turn. */
async function night(sb: Sandbox, targets: (w: Where) => string[], flags: string[]) {
  let where: Where = { id: '', workspace: '' };
  const api = await startMockApi((body: MessagesBody) => {
    const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
    const writes = targets(where);
    if (done < writes.length) return reply.write(writes[done] as string, `written by the agent (${done})\n`);
    if (done === writes.length) return reply.write(join(where.workspace, 'REPORT.md'), '# Report\n');
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
    const r = await sb.run(['launch', '--json', '--duration', '10m', ...flags, 'Try the walls'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    where = JSON.parse(r.stdout) as Where;
    await waitFor(() => sb.read(sb.state(where.id, 'DONE')), { timeout: 60_000, what: 'DONE' });
    await sb.quiesce();
    // What the CLI answered each Write, in order.
    const answers = api
      .mainRequests()
      .map((q) => toolResults(q.body))
      .filter((t) => t.length > 0)
      .map((t) => JSON.stringify(t.at(-1)));
    return { where, answers: [...new Set(answers)] };
  } finally {
    await api.close();
  }
}

describe("the agent's writes with overnight's default tools (real CLI)", () => {
  it('a plain run: its own directory yes; the records and the home directory no', async ({ sb }) => {
    assertClaudeInstalled();
    const { where, answers } = await night(
      sb,
      (w) => [
        join(sb.runs, '.overnight', w.id, 'planted.sh'),
        join(sb.home, '.bashrc'),
        join(w.workspace, 'findings', 'allowed.md'),
      ],
      [],
    );
    expect(existsSync(sb.state(where.id, 'planted.sh'))).toBe(false);
    expect(existsSync(join(sb.home, '.bashrc'))).toBe(false);
    expect(existsSync(join(where.workspace, 'findings', 'allowed.md'))).toBe(true);
    expect(existsSync(join(where.workspace, 'REPORT.md'))).toBe(true);
    expect(answers[0]).toMatch(/"is_error":true/);
    expect(answers[1]).toMatch(/"is_error":true/);
    expect(answers[2]).not.toMatch(/"is_error":true/);
    expect(sb.read(sb.state(where.id, 'output.log'))).toMatch(/"permission_denials":\[\{/);
  });

  it('a repository run: its worktree and the run directory yes; the records and the home directory no', async ({
    sb,
  }) => {
    assertClaudeInstalled();
    const repo = await makeRepo(sb.dir);
    const { where, answers } = await night(
      sb,
      (w) => [
        join(sb.runs, '.overnight', w.id, 'planted.sh'),
        join(sb.home, '.bashrc'),
        join(w.workspace, 'findings', 'allowed.md'),
        join(w.worktree ?? '', 'allowed.txt'),
      ],
      ['--repo', repo],
    );
    expect(existsSync(sb.state(where.id, 'planted.sh'))).toBe(false);
    expect(existsSync(join(sb.home, '.bashrc'))).toBe(false);
    expect(existsSync(join(where.workspace, 'findings', 'allowed.md'))).toBe(true);
    expect(existsSync(join(where.worktree ?? '', 'allowed.txt'))).toBe(true);
    expect(answers.slice(0, 2).every((a) => a.includes('"is_error":true'))).toBe(true);
    expect(answers.slice(2, 4).some((a) => a.includes('"is_error":true'))).toBe(false);
  });
});
