// `overnight continue` with the real Claude Code CLI against the mock API: the next night's first
// request carries the first night's conversation (resumed into a copy under a new session id), or,
// when the transcript is gone, is a fresh conversation handed the answers.
import { appendFileSync, existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { makeRepo } from '../helpers/git.js';
import { records, waitFor, type Sandbox } from '../helpers/harness.js';
import { test } from '../helpers/sandbox.js';
import {
  lastUserText,
  reply,
  startMockApi,
  toolResults,
  type MessagesBody,
  type MockApi,
  type RecordedRequest,
} from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const ANSWER = 'Yes: only Automerge 2 (ANSWER-MARKER).';
const QUESTION =
  '\n## Automerge 2 only?\n- Best guess: yes\n- Why it matters: v1 is unmaintained\n- Priority: high\n' +
  `Answer: ${ANSWER}\n`;

/** Each night writes its report at once (the first in its own words), then says it is done. */
function script(workspace: () => string) {
  return (body: MessagesBody) => {
    if (toolResults(body).length > 0) return reply.text('Done: the report is written.');
    const night = /continu/.test(lastUserText(body)) ? 'NIGHT-TWO' : 'NIGHT-ONE';
    return reply.write(join(workspace(), 'REPORT.md'), `# Report\n\n${night}-REPORT\n`);
  };
}

const it = test.extend<{ api: MockApi; night: { workspace: string } }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  night: async ({}, use) => use({ workspace: '' }),
  api: async ({ night }, use) => {
    const api = await startMockApi(script(() => night.workspace));
    await use(api);
    await api.close();
  },
});

async function overnight(sb: Sandbox, api: MockApi, ...args: string[]): Promise<string> {
  const env = { ...cliEnv(api.url, sb.home), PATH: process.env.PATH, OVERNIGHT_CLAUDE: CLAUDE };
  const r = await sb.run(args, { env });
  expect(r.exitCode, `overnight ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A first night that reported, and whose question the person answered. */
async function firstNight(sb: Sandbox, api: MockApi, night: { workspace: string }, flags: string[] = []) {
  const launched = JSON.parse(
    await overnight(sb, api, 'launch', '--json', '--duration', '60s', ...flags, 'Survey CRDT libraries'),
  ) as { id: string; workspace: string };
  night.workspace = launched.workspace;
  await waitFor(() => existsSync(join(launched.workspace, 'DONE')), {
    timeout: 40_000,
    what: 'night one DONE',
  });
  await sb.quiesce();
  appendFileSync(join(launched.workspace, 'questions.md'), QUESTION);
  return launched;
}

async function secondNight(sb: Sandbox, api: MockApi, night: { workspace: string }, from: string) {
  const before = api.mainRequests().length;
  const next = JSON.parse(await overnight(sb, api, 'continue', '--json', from, '--duration', '60s')) as {
    id: string;
    workspace: string;
    conversation: string;
  };
  night.workspace = next.workspace;
  await waitFor(() => existsSync(join(next.workspace, 'DONE')), { timeout: 40_000, what: 'night two DONE' });
  await sb.quiesce();
  const sessionId = /^session_id: (\S+)$/m.exec(
    readFileSync(join(records(next.workspace), 'run.yaml'), 'utf8'),
  )?.[1];
  const first = api.mainRequests()[before] as RecordedRequest;
  return { next, sessionId, first };
}

const said = (r: RecordedRequest) => JSON.stringify(r.body?.messages ?? []);
const system = (r: RecordedRequest) => {
  const s = r.body?.system;
  return typeof s === 'string' ? s : (s ?? []).map((b) => b.text).join('\n');
};

describe('continue with the real claude binary', () => {
  it("resumed: the next night's first request carries the first night's conversation, under its own session id", async ({
    sb,
    api,
    night,
  }) => {
    assertClaudeInstalled(); // fails, never skips
    const first = await firstNight(sb, api, night);
    const firstSession = api.mainRequests()[0]?.headers['x-claude-code-session-id'];
    const { next, sessionId, first: request } = await secondNight(sb, api, night, first.id);

    expect(next.conversation).toBe('resumed');
    expect(said(request)).toContain('You are running unattended under overnight');
    expect(said(request)).toContain('NIGHT-ONE-REPORT');
    expect(said(request)).toContain('Done: the report is written.');
    expect(lastUserText(request.body)).toContain(`continuing the run ${first.id} in the same conversation`);
    expect(lastUserText(request.body)).toContain(`Answer: ${ANSWER}`);
    expect(request.headers['x-claude-code-session-id']).toBe(sessionId);
    expect(sessionId).not.toBe(firstSession);
    expect(readFileSync(join(next.workspace, 'REPORT.md'), 'utf8')).toContain('NIGHT-TWO-REPORT');
    expect(readFileSync(join(next.workspace, 'previous', 'REPORT.md'), 'utf8')).toContain('NIGHT-ONE-REPORT');
    // The first night's own conversation is as it was: the next night's turns went to the copy.
    const projects = join(sb.home, '.claude', 'projects');
    const transcript = (cwd: string, id: string) =>
      readFileSync(join(projects, cwd.replace(/[^A-Za-z0-9]/g, '-'), `${id}.jsonl`), 'utf8');
    expect(transcript(first.workspace, String(firstSession))).not.toContain('NIGHT-TWO');
    expect(transcript(next.workspace, String(sessionId))).toContain('NIGHT-TWO-REPORT');
    // Its cost is its own: the mock bills every request alike, and each night made two.
    const rows = JSON.parse(await overnight(sb, api, 'status', '--json')) as { costUsd: number }[];
    const [one, two] = rows;
    expect(one?.costUsd).toBeGreaterThan(0);
    expect(two?.costUsd).toBeCloseTo(one?.costUsd ?? 0, 6);
  });

  it('handed over: without the transcript, the first request is a fresh conversation told the answers', async ({
    sb,
    api,
    night,
  }) => {
    assertClaudeInstalled();
    const first = await firstNight(sb, api, night);
    const projects = join(sb.home, '.claude', 'projects');
    renameSync(projects, `${projects}.cleaned`);
    const { next, sessionId, first: request } = await secondNight(sb, api, night, first.id);

    expect(next.conversation).toBe('handed over');
    expect(request.body?.messages?.filter((m) => m.role === 'assistant')).toEqual([]);
    expect(said(request)).not.toContain('NIGHT-ONE-REPORT');
    expect(lastUserText(request.body)).toContain(`continues the earlier run ${first.id}`);
    expect(lastUserText(request.body)).toContain('its conversation could not be resumed');
    expect(lastUserText(request.body)).toContain(`Answer: ${ANSWER}`);
    expect(lastUserText(request.body)).toContain(
      "The earlier run's last words were:\n\nDone: the report is written.",
    );
    expect(request.headers['x-claude-code-session-id']).toBe(sessionId);
    expect(readFileSync(join(next.workspace, 'REPORT.md'), 'utf8')).toContain('NIGHT-TWO-REPORT');
  });

  it('a repository follow-up: the earlier conversation resumed, with the new briefing as its system prompt', async ({
    sb,
    api,
    night,
  }) => {
    assertClaudeInstalled();
    const repo = await makeRepo(sb.dir);
    const first = await firstNight(sb, api, night, ['--repo', repo]);
    const { next, first: request } = await secondNight(sb, api, night, first.id);

    expect(next.conversation).toBe('resumed');
    expect(said(request)).toContain('NIGHT-ONE-REPORT');
    // A conversation keeps its first system prompt unless told otherwise: this one is the new briefing.
    expect(system(request)).toContain(`## Continued from ${first.id}`);
    expect(system(request)).toContain(join(next.workspace, 'questions.md'));
    expect(system(request)).not.toContain(join(first.workspace, 'questions.md'));
    expect(lastUserText(request.body)).toContain(`Answer: ${ANSWER}`);
  });
});
