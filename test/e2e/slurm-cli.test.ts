// The real Claude Code CLI through overnight on the slurm backend, against the mock API: each
// session a batch job of the real single-node cluster (scripts/slurm-up.sh, found as
// test/helpers/slurm.ts says). A real Write, the end time's interrupt through scancel --signal,
// the synthesis in a job of its own writes REPORT.md, DONE.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';

import { BIN, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import {
  holdCluster,
  requireCluster,
  SLURM_CONF,
  SLURM_WANTED,
  slurmNights,
  uniqueName,
} from '../helpers/slurm.js';
import {
  lastUserText,
  messageText,
  reply,
  startMockApi,
  type MessagesBody,
  type MockApi,
} from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const DURATION_S = 20;

/** The first turn writes a finding; later turns hang until interrupted; after "Time is up", the report. */
function script(workspace: () => string) {
  return (body: MessagesBody) => {
    const messages = body.messages ?? [];
    const timeUp = messages
      .map((m) => m.role === 'user' && messageText(m).includes('Time is up'))
      .lastIndexOf(true);
    if (timeUp >= 0)
      return messages.slice(timeUp).some((m) => m.role === 'assistant')
        ? reply.text('REPORT.md is written.')
        : reply.write(join(workspace(), 'REPORT.md'), '# Report\n\nOne finding: findings/x.md.\n');
    if (!messages.some((m) => m.role === 'assistant'))
      return reply.write(join(workspace(), 'findings', 'x.md'), '# X\n\nA finding.\n');
    return reply.hang();
  };
}

describe.runIf(SLURM_WANTED)('the real claude binary on the slurm backend', () => {
  let release: (() => Promise<void>) | null = null;
  let api: MockApi | null = null;
  let workspace = '';
  const { runJobs, nothingLeft, cancelLeft } = slurmNights(() => ({}));

  beforeAll(async () => {
    requireCluster();
    api = await startMockApi(script(() => workspace));
    release = await holdCluster();
  }, 960_000);

  afterAll(async () => {
    await api?.close();
    await release?.();
  });

  afterEach(cancelLeft);

  it('launch → a real Write → end time → interrupt through scancel → synthesis job writes REPORT.md → DONE', async ({
    sb,
  }) => {
    assertClaudeInstalled(); // fails, never skips
    if (!existsSync(join(BIN, '..', '..', 'dist', 'main.js')))
      throw new Error('dist/ is missing: run npm run build (npm test does it)');
    const mock = api as MockApi;
    const env = {
      ...cliEnv(mock.url, sb.home),
      PATH: process.env.PATH,
      OVERNIGHT_CLAUDE: CLAUDE,
      OVERNIGHT_SYNTHESIS_BUDGET: '60s',
      // A request that never answers keeps the agent busy until the interrupt ends it.
      API_TIMEOUT_MS: '120000',
      CLAUDE_CODE_OAUTH_TOKEN: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
      OVERNIGHT_BACKEND: 'slurm',
      SLURM_CONF: SLURM_CONF as string,
    };
    const run = async (...args: string[]) => {
      const r = await sb.run(args, { env });
      expect(r.exitCode, `overnight ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const launched = JSON.parse(
      await run(
        'launch',
        '--json',
        '--duration',
        `${DURATION_S}s`,
        '--name',
        uniqueName(sb),
        'Survey the mock API',
      ),
    ) as { id: string; workspace: string; endsAt: string };
    const { id } = launched;
    workspace = launched.workspace;
    expect(sb.read(sb.state(id, 'run.yaml'))).toMatch(/^backend: slurm$/m);

    // The first turn's Write ran inside the job; the agent now waits on its second request.
    const finding = join(workspace, 'findings', 'x.md');
    await waitFor(() => existsSync(finding) && mock.mainRequests().length >= 2, {
      timeout: 60_000,
      what: 'finding written and second request open',
    });
    expect(readFileSync(finding, 'utf8')).toContain('A finding.');
    expect((await runJobs(id)).map((j) => [j.name, j.state])).toEqual([[`overnight-${id}-1`, 'RUNNING']]);

    // Past the end time, a pass interrupts the agent through Slurm; the wrapper's pass, in the job,
    // starts the synthesis as job 2, which writes the report.
    await waitFor(() => Date.now() > new Date(launched.endsAt).getTime() + 100, {
      timeout: (DURATION_S + 10) * 1000,
      what: 'end time passed',
    });
    await run('reconcile');
    const done = await waitFor(() => sb.read(join(workspace, 'DONE')), { timeout: 90_000, what: 'DONE' });
    expect(done).toMatch(/REPORT\.md/);
    expect(readFileSync(join(workspace, 'REPORT.md'), 'utf8')).toContain('One finding');
    const synthesis = mock.mainRequests().find((r) => lastUserText(r.body).includes('Time is up'));
    expect(JSON.stringify(synthesis?.body?.messages)).toContain('You are running unattended under overnight');
    expect(sb.read(sb.state(id, 'events.jsonl'))).toMatch(/"action":"interrupt","cause":"end-time"/);
    expect(sb.read(sb.state(id, 'agent-1.exit'))).not.toBeNull();
    expect((await runJobs(id)).map((j) => j.name).sort()).toEqual([`overnight-${id}-1`, `overnight-${id}-2`]);
    await nothingLeft(sb, id);

    const [row] = JSON.parse(await run('status', '--json', id)) as Record<string, unknown>[];
    expect(row).toMatchObject({ id, state: 'done', backend: 'slurm', sessions: 2 });
  }, 240_000);
});
