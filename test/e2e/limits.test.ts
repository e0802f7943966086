// The real Claude Code CLI through overnight, against the mock API, for the night's limits: a
// per-minute 429 and an overloaded API (529) after the CLI's own retries, and paid extra usage
// reported under OAuth by a rate_limit_event the CLI derives from the reply's headers.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { parseRestartLog } from '../../src/core/run/records.js';
import { alive, waitFor, type Sandbox } from '../helpers/harness.js';
import { test } from '../helpers/sandbox.js';
import { reply, startMockApi, unified, type MockApi, type Script } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv, cliSandbox, OAUTH_TOKEN } from './real-cli.js';

interface Night {
  api: MockApi;
  /** `overnight <args>` with the real CLI against the mock (`auth` picks the credential). */
  overnight: (auth: 'api-key' | 'oauth', extra: Record<string, string>, ...args: string[]) => Promise<string>;
}

const it = test.extend<Night>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  api: async ({}, use) => {
    const api = await startMockApi();
    await use(api);
    await api.close();
  },
  overnight: async ({ api, sb }, use) =>
    use(async (auth, extra, ...args) => {
      const env = {
        ...cliEnv(api.url, sb.home, auth),
        PATH: process.env.PATH,
        OVERNIGHT_CLAUDE: CLAUDE,
        // A request that never answers keeps the agent busy until overnight acts.
        API_TIMEOUT_MS: '120000',
        ANTHROPIC_API_KEY: auth === 'api-key' ? 'sk-test' : undefined,
        CLAUDE_CODE_OAUTH_TOKEN: auth === 'oauth' ? OAUTH_TOKEN : undefined,
        ANTHROPIC_AUTH_TOKEN: undefined,
        ...extra,
      };
      const r = await sb.run(args, { env });
      expect(r.exitCode, `overnight ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    }),
});

const launch = async (o: Night['overnight'], auth: 'api-key' | 'oauth', extra: Record<string, string>) =>
  JSON.parse(await o(auth, extra, 'launch', '--json', '--duration', '1h', 'Survey the mock API')) as {
    id: string;
    workspace: string;
  };
const restarts = (sb: Sandbox, id: string) => parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '');
const row = async (o: Night['overnight']) =>
  (JSON.parse(await o('api-key', {}, 'status', '--json')) as Record<string, unknown>[])[0] as {
    state: string;
    reason: string;
    restarts: number;
    usageWindows?: { fiveHour?: { utilization: number } };
  };

describe('the real CLI: API trouble and paid extra usage through overnight', () => {
  it('a per-minute 429 after the retries is waited out as a retry, not a crash; the run goes on', async ({
    api,
    sb,
    overnight,
  }) => {
    assertClaudeInstalled();
    // Two attempts (CLAUDE_CODE_MAX_RETRIES=1) answered 429, then the API is fine again.
    api.setScript((_b, { index }) => (index < 2 ? reply.rateLimited() : reply.hang()));
    const { id } = await launch(overnight, 'api-key', { OVERNIGHT_BACKOFF: '1s' });
    await waitFor(() => api.mainRequests().length >= 3, { timeout: 30_000, what: 'the retry asks the API' });
    const log = restarts(sb, id);
    expect(log.map((r) => r.mode)).toEqual(['retry']);
    expect(log[0]?.reason).toMatch(
      /^the API failed \(429 rate_limit_error, exit 1\): API Error: Request rejected \(429\) .*; not counted as a restart$/,
    );
    expect(await row(overnight)).toMatchObject({ state: 'running', restarts: 0 });
    await overnight('api-key', {}, 'stop', id);
  });

  it('an overloaded API (529) past transient_max fails the run, saying so, with no restart counted', async ({
    api,
    sb,
    overnight,
  }) => {
    api.setScript(() => reply.overloaded());
    const { id } = await launch(overnight, 'api-key', {
      OVERNIGHT_BACKOFF: '1s',
      OVERNIGHT_TRANSIENT_MAX: '4s',
      OVERNIGHT_MAX_RESTARTS: '1',
    });
    const failed = await waitFor(() => sb.read(sb.ws(id, 'FAILED')), { timeout: 45_000, what: 'FAILED' });
    expect(failed).toMatch(
      /^the API kept failing for \d+s, longer than transient_max \(4s\); last 529 overloaded_error/,
    );
    expect(restarts(sb, id).every((r) => r.mode === 'retry')).toBe(true);
    expect((await row(overnight)).restarts).toBe(0);
  });

  it('OAuth, paid extra usage begins: the next pass stops the agent, the run waits for the reset, then continues uncounted', async ({
    api,
    sb,
    overnight,
  }) => {
    // The window resets this long after the reply that says so (the CLI takes seconds to start on
    // a loaded machine: a reset fixed at launch could pass before the first pass looks).
    const resetIn = 15;
    let resetAt = 0;
    const spent = (reset: number) =>
      unified({
        status: 'rejected',
        reset,
        'representative-claim': 'five_hour',
        'overage-status': 'allowed',
        '5h-utilization': '1.0',
        '5h-reset': reset,
        '7d-utilization': '0.4',
        '7d-reset': reset + 86400,
      });
    let workspace = '';
    // The first turn writes a finding on a reply that says the window is spent and extra usage
    // is billed; every later request stays open (the agent keeps working).
    const script: Script = (_b, { index }) =>
      index === 0
        ? reply.withHeaders(
            reply.write(join(workspace, 'findings', 'x.md'), '# X\n'),
            spent((resetAt = Math.floor(Date.now() / 1000) + resetIn)),
          )
        : reply.hang();
    api.setScript(script);
    const launched = await launch(overnight, 'oauth', { OVERNIGHT_LIMIT_MARGIN: '1s' });
    workspace = launched.workspace;
    const { id } = launched;
    await waitFor(() => sb.read(sb.state(id, 'output.log'))?.includes('"isUsingOverage":true'), {
      timeout: 30_000,
      what: 'the CLI reporting paid extra usage',
    });
    const pid = Number(sb.read(sb.state(id, 'agent-1.pid'))?.split(' ')[0]);
    const pass = await overnight('oauth', {}, 'reconcile');
    expect(pass).toContain('interrupted the agent: paid extra usage: the five_hour limit was reached');
    expect(alive(pid)).toBe(false);
    const waiting = await row(overnight);
    expect(waiting.state).toBe('waiting');
    expect(waiting.reason).toMatch(
      /paid extra usage began \(allow_overage is off\): resets \d\d:\d\d; waiting until/,
    );
    expect(waiting.usageWindows?.fiveHour?.utilization).toBe(1);
    // The wake timer starts the next session after the reset plus limit_margin.
    await waitFor(() => sb.read(sb.state(id, 'agent-2.pid')), {
      timeout: 30_000,
      what: 'the session after the reset',
    });
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(resetAt + 1);
    expect(restarts(sb, id).map((r) => r.mode)).toEqual(['continue']);
    expect((await row(overnight)).restarts).toBe(0);
    await overnight('oauth', {}, 'stop', id);
  });

  it('the mock sends rate-limit headers on a success, and the CLI reports them (direct run, OAuth)', async () => {
    const at = Math.floor(Date.now() / 1000) + 3600;
    const mock = await startMockApi(() =>
      reply.withHeaders(
        reply.text('OK'),
        unified({ status: 'rejected', reset: at, 'overage-status': 'allowed' }),
      ),
    );
    const box = cliSandbox();
    try {
      const run = await box.claude(
        ['--session-id', randomUUID()],
        'Hello',
        cliEnv(mock.url, box.home, 'oauth'),
      );
      expect(run.exitCode).toBe(0);
      expect(run.events.find((e) => e.type === 'rate_limit_event')).toMatchObject({
        rate_limit_info: { status: 'rejected', resetsAt: at, overageStatus: 'allowed', isUsingOverage: true },
      });
    } finally {
      await mock.close();
      box.cleanup();
    }
  });
});
