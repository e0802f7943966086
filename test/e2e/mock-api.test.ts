// Proves the mock API against the real Claude Code CLI, driven directly (no overnight).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { lastUserText, reply, sequence, startMockApi, toolResults, type MockApi } from './mock-api.js';
import {
  assertClaudeInstalled,
  CLAUDE,
  cliEnv,
  cliSandbox,
  parseStream,
  REPO,
  type CliRun,
  type StreamEvent,
} from './real-cli.js';

const FIXTURES = join(REPO, 'test', 'fixtures', 'real-cli');

/** The version package.json pins: the binary the tests below run must be that one. */
const PINNED = (
  JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies['@anthropic-ai/claude-code'] as string;
const types = (events: StreamEvent[]) => events.map((e) => (e.subtype ? `${e.type}/${e.subtype}` : e.type));

/**
 * Real-CLI outputs for parser tests, with the sandbox paths and port made stable. Written when
 * missing or with UPDATE_FIXTURES=1; otherwise the live run must still have the fixture's shape.
 */
function fixture(name: string, run: CliRun, sandboxDir: string, url: string): void {
  const file = join(FIXTURES, name);
  const text = run.stdout.split(sandboxDir).join('/sandbox').split(url).join('http://127.0.0.1:PORT');
  if (process.env.UPDATE_FIXTURES === '1' || !existsSync(file)) {
    mkdirSync(FIXTURES, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  expect(
    types(parseStream(readFileSync(file, 'utf8'))),
    `${name} no longer matches the CLI; rerun with UPDATE_FIXTURES=1`,
  ).toEqual(types(run.events));
}

describe('mock Anthropic API against the real claude binary', () => {
  let api: MockApi;
  let sb: ReturnType<typeof cliSandbox>;
  beforeEach(async () => {
    api = await startMockApi();
    sb = cliSandbox();
  });
  afterEach(async () => {
    await api.close();
    sb.cleanup();
  });
  const env = (auth: 'api-key' | 'oauth' = 'api-key') => cliEnv(api.url, sb.home, auth);

  // A missing binary fails here, and every test below fails on its own: nothing is skipped.
  it('the pinned claude binary is installed', async () => {
    assertClaudeInstalled();
    expect((await execa(CLAUDE, ['--version'])).stdout.split(' ')[0]).toBe(PINNED);
  });

  it('the mock alone: HEAD, plain JSON, side requests outside the script, unknown paths logged', async () => {
    api.setScript(sequence(reply.text('first'), reply.toolUse('Read', { file_path: '/x' })));
    expect((await fetch(`${api.url}/`, { method: 'HEAD' })).status).toBe(200);
    const post = (body: unknown) =>
      fetch(`${api.url}/v1/messages`, { method: 'POST', body: JSON.stringify(body) }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    const side = await post({ max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] });
    expect(side.content).toEqual([{ type: 'text', text: 'Mock side reply' }]);
    const main = { tools: [{ name: 'Read' }], messages: [{ role: 'user', content: 'hi' }] };
    expect(await post(main)).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'first' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 100 },
    });
    expect(await post(main)).toMatchObject({
      content: [{ type: 'tool_use', name: 'Read', input: { file_path: '/x' } }],
      stop_reason: 'tool_use',
    });
    expect((await fetch(`${api.url}/v1/messages/count_tokens`, { method: 'POST', body: '{}' })).status).toBe(
      404,
    );
    expect(api.unknown).toEqual(['POST /v1/messages/count_tokens']);
    expect(api.mainRequests()).toHaveLength(2);
  });

  it('text reply: a result event with is_error false and a cost', async () => {
    api.setScript(() => reply.text('Hello from the mock'));
    const run = await sb.claude(['--session-id', randomUUID()], 'Say hello', env());
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.result).toMatchObject({ subtype: 'success', is_error: false, result: 'Hello from the mock' });
    expect(run.result?.total_cost_usd).toBeGreaterThan(0);
    expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/messages?beta=true']);
    expect(api.requests[0]?.body?.stream).toBe(true);
    expect(lastUserText(api.requests[0]?.body ?? null)).toContain('Say hello');
  });

  it('tool_use Write: the CLI writes the file and sends the tool_result back', async () => {
    const target = join(sb.workspace, 'findings', 'x.md');
    api.setScript((body) =>
      toolResults(body).length > 0 ? reply.text('Noted.') : reply.write(target, '# Finding\n'),
    );
    const run = await sb.claude(['--session-id', randomUUID()], 'Write a finding', env());
    expect(run.exitCode, run.stdout).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('# Finding\n');
    const [first, second] = api.mainRequests();
    expect(api.mainRequests()).toHaveLength(2);
    const toolUse = run.events.find(
      (e) => e.type === 'assistant' && JSON.stringify(e).includes('"tool_use"'),
    );
    const id = (toolUse?.message as { content: { id: string }[] }).content[0]?.id;
    expect(toolResults(second?.body ?? null)).toEqual([expect.objectContaining({ tool_use_id: id })]);
    expect(toolResults(first?.body ?? null)).toEqual([]);
    expect(run.result).toMatchObject({
      is_error: false,
      num_turns: 2,
      result: 'Noted.',
      permission_denials: [],
    });
  });

  it('--resume sends the earlier conversation, under the same session id', async () => {
    const sessionId = randomUUID();
    api.setScript((body) =>
      reply.text(lastUserText(body).includes('PLUM') ? 'I will remember PLUM.' : 'Still PLUM.'),
    );
    const first = await sb.claude(['--session-id', sessionId], 'Remember the word PLUM', env());
    expect(first.exitCode, first.stdout).toBe(0);
    const second = await sb.claude(['--resume', sessionId], 'Which word?', env());
    expect(second.exitCode, second.stdout).toBe(0);
    expect(second.events[0]).toMatchObject({ type: 'system', subtype: 'init', session_id: sessionId });
    const body = JSON.stringify(api.mainRequests()[1]?.body?.messages);
    expect(body).toContain('Remember the word PLUM');
    expect(body).toContain('I will remember PLUM.');
    expect(lastUserText(api.mainRequests()[1]?.body ?? null)).toContain('Which word?');
    expect(api.mainRequests().map((r) => r.headers['x-claude-code-session-id'])).toEqual([
      sessionId,
      sessionId,
    ]);
    // total_cost_usd counts the whole conversation (restored from the transcript's cost-state), `usage` this session only.
    expect(second.result?.total_cost_usd).toBeCloseTo(2 * Number(first.result?.total_cost_usd), 6);
    expect(second.result?.usage).toMatchObject({ input_tokens: 100, output_tokens: 20 });
  });

  it('401: exit 1, one retry, the result says the key is invalid', async () => {
    api.setScript(() => reply.authError());
    const run = await sb.claude(['--session-id', randomUUID()], 'Hello', env());
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.events.find((e) => e.subtype === 'api_retry')).toMatchObject({
      error_status: 401,
      error: 'authentication_failed',
    });
    expect(run.events.find((e) => e.type === 'assistant')).toMatchObject({ error: 'authentication_failed' });
    expect(run.result).toMatchObject({
      subtype: 'success',
      is_error: true,
      api_error_status: 401,
      total_cost_usd: 0,
    });
    expect(run.result?.result).toMatch(/Invalid API key/);
    expect(api.mainRequests()).toHaveLength(2);
    fixture('auth-401.jsonl', run, sb.dir, api.url);
  });

  it('subscription limit (OAuth): a rejected rate_limit_event with resetsAt, no retries, the limit text', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 2 * 3600;
    api.setScript(() => reply.subscriptionLimit(resetsAt));
    const run = await sb.claude(['--session-id', randomUUID()], 'Hello', env('oauth'));
    expect(run.exitCode).toBe(1);
    expect(api.mainRequests()).toHaveLength(1);
    expect(api.requests[0]?.headers.authorization).toMatch(/^Bearer sk-ant-oat01-/);
    expect(run.events.find((e) => e.type === 'rate_limit_event')).toMatchObject({
      rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' },
    });
    expect(run.events.find((e) => e.type === 'assistant')).toMatchObject({ error: 'rate_limit' });
    expect(run.result).toMatchObject({ is_error: true, api_error_status: 429 });
    expect(run.result?.result).toMatch(/limit · resets /);
    fixture('subscription-limit.jsonl', run, sb.dir, api.url);
  });

  it('429 with and without retry-after, and 529: api_retry events, then exit 1 with the status in the result', async () => {
    const runs = await Promise.all(
      [reply.rateLimited(1), reply.rateLimited(), reply.overloaded()].map(async (r) => {
        const mock = await startMockApi(() => r);
        const box = cliSandbox();
        try {
          return await box.claude(['--session-id', randomUUID()], 'Hello', cliEnv(mock.url, box.home));
        } finally {
          await mock.close();
          box.cleanup();
        }
      }),
    );
    const retry = (run: CliRun) =>
      run.events.find((e) => e.subtype === 'api_retry') as unknown as {
        error_status: number;
        retry_delay_ms: number;
      };
    const [withAfter, without, overloaded] = runs as [CliRun, CliRun, CliRun];
    for (const run of runs) expect(run.exitCode).toBe(1);
    expect(retry(withAfter)).toMatchObject({ error_status: 429, error: 'rate_limit' });
    expect(retry(withAfter).retry_delay_ms).toBeGreaterThanOrEqual(1000); // retry-after is honoured
    expect(retry(without).retry_delay_ms).toBeLessThan(1000);
    expect(without.result).toMatchObject({ is_error: true, api_error_status: 429 });
    expect(String(without.result?.result)).toMatch(/429/);
    expect(retry(overloaded)).toMatchObject({ error_status: 529, error: 'overloaded' });
    expect(overloaded.result).toMatchObject({ is_error: true, api_error_status: 529 });
  });

  it('a request that never answers, then SIGINT: exit 0 and never a success result; the resume goes on from the interrupted turn', async () => {
    const sessionId = randomUUID();
    const interrupt = async (args: string[]): Promise<CliRun> => {
      const before = api.mainRequests().length;
      const child = execa(CLAUDE, ['-p', '--output-format', 'stream-json', '--verbose', ...args], {
        cwd: sb.workspace,
        env: env(),
        extendEnv: false,
        input: 'Hello',
        reject: false,
      });
      const deadline = Date.now() + 15_000;
      while (api.mainRequests().length === before && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(api.mainRequests()).toHaveLength(before + 1);
      child.kill('SIGINT');
      const r = await child;
      const events = parseStream(String(r.stdout));
      return {
        exitCode: r.exitCode ?? -1,
        stdout: String(r.stdout),
        stderr: String(r.stderr),
        events,
        result: events.find((e) => e.type === 'result'),
      };
    };
    api.setScript(() => reply.hang());
    for (const args of [
      ['--session-id', sessionId],
      ['--resume', sessionId],
    ]) {
      const run = await interrupt(args);
      expect(run.exitCode).toBe(0);
      // Racy in 2.1.329, more so on a loaded machine: sometimes no result at all, sometimes
      // error_during_execution / aborted_streaming; "[Request interrupted by user]" only sometimes.
      expect(run.result?.subtype).not.toBe('success');
      if (run.result)
        expect(run.result).toMatchObject({
          subtype: 'error_during_execution',
          is_error: true,
          terminal_reason: 'aborted_streaming',
        });
      if (run.result && process.env.UPDATE_FIXTURES === '1')
        fixture('sigint-mid-request.jsonl', run, sb.dir, api.url);
    }
    // The CLI keeps either its interruption marker or a placeholder for the unanswered turn.
    expect(JSON.stringify(api.mainRequests()[1]?.body?.messages)).toMatch(
      /\[Request interrupted by user\]|No response requested\./,
    );
  });
});
