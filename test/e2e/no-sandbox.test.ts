// The real Claude Code CLI against the mock API, on a run without the sandbox (`--no-sandbox`, or a
// machine without bubblewrap): the agent has no Bash at all, not even for the check's command, and
// overnight runs the check itself. The commands are `node -e …`, which the CLI never allows by itself
// (it does let read-only commands such as echo run, and with acceptEdits file commands such as
// touch on the working directory). With the sandbox, Bash is the agent's (test/e2e/sandbox.test.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor, type Sandbox } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { reply, startMockApi, toolResults, type MessagesBody } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const CHECK = `node -e "console.log('check-ran-by-agent')"`;

/** A night whose agent asks for the check, another command, the two chained, then the report. */
async function night(sb: Sandbox, flags: string[]) {
  let workspace = '';
  const api = await startMockApi((body: MessagesBody) => {
    const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
    const plant = `node -e "require('fs').writeFileSync('${join(workspace, 'planted.txt')}', 'x')"`;
    const calls = [CHECK, plant, `${CHECK} && ${plant}`];
    const command = calls[done];
    if (command !== undefined) return reply.toolUse('Bash', { command, description: `call ${done}` });
    if (done === calls.length) return reply.write(join(workspace, 'REPORT.md'), '# Report\n');
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
    const r = await sb.run(['launch', '--json', '--duration', '10m', ...flags, 'Run the check'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { id: string; workspace: string };
    workspace = run.workspace;
    const done = await waitFor(() => sb.read(sb.state(run.id, 'DONE')), { timeout: 90_000, what: 'DONE' });
    await sb.quiesce();
    // What the CLI answered each tool call, in order.
    const answers = api
      .mainRequests()
      .map((q) => toolResults(q.body).at(-1))
      .filter((t) => t !== undefined)
      .map((t) => ({ error: t.is_error === true, text: JSON.stringify(t.content) }));
    return { done, answers, planted: existsSync(join(workspace, 'planted.txt')) };
  } finally {
    await api.close();
  }
}

describe('without the sandbox the agent has no Bash (real CLI)', () => {
  it('with --verify: the check, another command, or one chained to it: each refused', async ({ sb }) => {
    assertClaudeInstalled();
    const { done, answers, planted } = await night(sb, ['--no-sandbox', '--verify', CHECK]);
    const [check, other, chained] = answers;
    expect(check).toEqual({ error: true, text: expect.stringContaining('requires approval') });
    expect(other).toEqual({ error: true, text: expect.stringContaining('requires approval') });
    expect(chained).toEqual({ error: true, text: expect.stringMatching(/require(s)? approval/) });
    expect(planted).toBe(false);
    // And overnight ran the check itself before DONE.
    expect(done).toMatch(/; verified by exit code alone/);
  });

  it('without a check, the same command is refused', async ({ sb }) => {
    assertClaudeInstalled();
    const { answers } = await night(sb, ['--no-sandbox']);
    expect(answers[0]).toEqual({ error: true, text: expect.stringContaining('requires approval') });
  });
});
