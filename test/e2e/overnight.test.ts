// The real Claude Code CLI through overnight, against the mock API: launch, a real Write tool
// call, kill -9 mid-request, resume of the same conversation, the synthesis writes REPORT.md, DONE.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { alive, BIN, records, waitFor } from '../helpers/harness.js';
import { test } from '../helpers/sandbox.js';
import {
  lastUserText,
  messageText,
  reply,
  startMockApi,
  toolResults,
  type MessagesBody,
  type MockApi,
  type Script,
} from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const DURATION_S = 15;

/**
 * Main conversation by content, not by count, so a retry or an extra pass changes nothing:
 * the first turn writes a finding; any later exploring turn never gets an answer (the agent
 * stays busy until it is killed or interrupted); after "Time is up" the agent writes REPORT.md.
 */
function script(workspace: () => string): Script {
  return (body: MessagesBody) => {
    const messages = body.messages ?? [];
    const timeUp = messages
      .map((m) => m.role === 'user' && messageText(m).includes('Time is up'))
      .lastIndexOf(true);
    if (timeUp >= 0) {
      const answered = messages.slice(timeUp).some((m) => m.role === 'assistant');
      return answered
        ? reply.text('REPORT.md is written.')
        : reply.write(join(workspace(), 'REPORT.md'), '# Report\n\nOne finding: findings/x.md.\n');
    }
    if (!messages.some((m) => m.role === 'assistant'))
      return reply.write(join(workspace(), 'findings', 'x.md'), '# X\n\nA finding.\n');
    return reply.hang();
  };
}

interface Night {
  /** The mock API, answering by `script`. */
  api: MockApi;
  /** The environment overnight runs the real CLI with: the sandbox's, against the mock API. */
  env: Record<string, string | undefined>;
  /** `overnight <args>` in the sandbox with that environment: its stdout, once it exited 0. */
  overnight: (...args: string[]) => Promise<string>;
}

/** The run's workspace, once launched: where the script has the agent write. */
let workspace = '';

const it = test.extend<Night>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  api: async ({}, use) => {
    const api = await startMockApi(script(() => workspace));
    await use(api);
    await api.close();
  },
  env: async ({ api, sb }, use) =>
    use({
      ...cliEnv(api.url, sb.home),
      PATH: process.env.PATH,
      OVERNIGHT_CLAUDE: CLAUDE,
      OVERNIGHT_SYNTHESIS_BUDGET: '60s',
      // A request that never answers must keep the agent busy until the test acts, not time out
      // and retry after 3 s (claude-cli.md); the kill and the interrupt end the agent instead.
      API_TIMEOUT_MS: '120000',
      CLAUDE_CODE_OAUTH_TOKEN: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
    }),
  overnight: async ({ sb, env }, use) =>
    use(async (...args: string[]) => {
      const r = await sb.run(args, { env });
      expect(r.exitCode, `overnight ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    }),
});

describe('overnight with the real claude binary', () => {
  it('launch → finding via a real Write → kill -9 mid-request → resumed conversation → synthesis writes REPORT.md → DONE', async ({
    api,
    sb,
    overnight,
  }) => {
    const main = () => api.mainRequests();
    const mainBody = (i: number) => JSON.stringify(main()[i]?.body?.messages ?? []);
    assertClaudeInstalled(); // fails, never skips
    if (!existsSync(join(BIN, '..', '..', 'dist', 'main.js')))
      throw new Error('dist/ is missing: run npm run build (npm test does it)');
    const launched = JSON.parse(
      await overnight('launch', '--json', '--duration', `${DURATION_S}s`, 'Survey the mock API'),
    ) as { id: string; workspace: string; endsAt: string };
    const { id } = launched;
    workspace = launched.workspace;
    const sessionId = /^session_id: (\S+)$/m.exec(
      readFileSync(join(records(workspace), 'run.yaml'), 'utf8'),
    )?.[1];
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    // 1. The first turn's Write really ran; the agent now waits on its second request.
    const finding = join(workspace, 'findings', 'x.md');
    await waitFor(() => existsSync(finding) && main().length >= 2, {
      timeout: 20_000,
      what: 'finding written and second request open',
    });
    expect(readFileSync(finding, 'utf8')).toContain('A finding.');
    expect(lastUserText(main()[0]?.body ?? null)).toContain('You are running unattended under overnight');
    expect(toolResults(main()[1]?.body ?? null)).toHaveLength(1);

    // 2. kill -9 while the request is open; the wrapper records it and starts a pass, and so do we.
    // The CLI appends to its transcript ~100 ms after the fact: a kill before that loses the turn
    // (the resumed request then holds the prompt and a synthetic "No response requested." only).
    const transcript = join(
      sb.home,
      '.claude',
      'projects',
      realpathSync(workspace).replace(/[^A-Za-z0-9]/g, '-'),
      `${sessionId}.jsonl`,
    );
    await waitFor(() => sb.read(transcript)?.includes('"tool_result"'), {
      what: 'the tool_result in the transcript',
    });
    // The pid record may land after the agent's first turns on a machine slow to flush it.
    const pid = Number(
      (await waitFor(() => sb.read(sb.state(id, 'agent-1.pid')), { what: 'agent-1.pid' })).split(' ')[0],
    );
    expect(alive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => /^137 1 /.test(sb.read(sb.state(id, 'agent-1.exit')) ?? ''), {
      what: 'exit 137 recorded',
    });
    await overnight('reconcile');

    // 3. The resumed session sends the whole earlier conversation, under the same session id.
    await waitFor(() => main().length >= 3, { timeout: 20_000, what: 'the resumed session asks the API' });
    expect(mainBody(2)).toContain('You are running unattended under overnight');
    expect(mainBody(2)).toContain(finding);
    expect(mainBody(2)).toContain('"tool_result"');
    expect(lastUserText(main()[2]?.body ?? null)).toContain('You were restarted');
    expect(main().map((r) => r.headers['x-claude-code-session-id'])).toEqual([
      sessionId,
      sessionId,
      sessionId,
    ]);
    expect(main()[2]?.body?.model).toBe(main()[0]?.body?.model); // the model was pinned
    expect(sb.read(join(records(workspace), 'restart.log'))).toMatch(/\tresume\texit=137\t/);
    await waitFor(() => existsSync(sb.state(id, 'agent-2.pid')), { what: 'agent-2.pid' });

    // 4. After the end time a pass interrupts the agent and starts the synthesis, which writes the report.
    const endsAt = new Date(launched.endsAt).getTime();
    await waitFor(() => Date.now() > endsAt + 100, {
      timeout: (DURATION_S + 5) * 1000,
      what: 'end time passed',
    });
    expect(existsSync(join(workspace, 'DONE'))).toBe(false);
    await overnight('reconcile');
    const done = await waitFor(() => sb.read(join(workspace, 'DONE')), { timeout: 20_000, what: 'DONE' });
    expect(done).toMatch(/REPORT\.md/);
    expect(readFileSync(join(workspace, 'REPORT.md'), 'utf8')).toContain('One finding');
    const synthesis = main().find((r) => lastUserText(r.body).includes('Time is up'));
    expect(synthesis?.headers['x-claude-code-session-id']).toBe(sessionId);
    expect(JSON.stringify(synthesis?.body?.messages)).toContain('You are running unattended under overnight');
    expect(existsSync(join(workspace, 'FAILED'))).toBe(false);
    await sb.quiesce();

    // 5. status and logs tell what the sessions did and cost.
    const [row] = JSON.parse(await overnight('status', '--json', id)) as Record<string, unknown>[];
    expect(row).toMatchObject({ id, state: 'done', restarts: 1, findings: 1, sessions: 3 });
    expect(row?.reason).toMatch(/REPORT\.md/);
    expect(row?.costUsd).toBeGreaterThan(0);
    expect((row?.tokens as { input: number }).input).toBeGreaterThan(0);
    const logs = await overnight('logs', id, '--all');
    expect(logs).toMatch(/Write.*findings\/x\.md/);
    expect(logs).toMatch(/Write.*REPORT\.md/);
    expect(logs).not.toContain('\u001b['); // not a TTY: no colours
  });
});
