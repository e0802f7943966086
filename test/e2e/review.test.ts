// The reviewer with the real CLI against the mock API: after the final check, a fresh session with
// read-only tools and `--json-schema` reads the night's work and returns a structured review. Its
// findings reach status and result.json; a hostile review is held to its bounds and shown as text;
// a review that fails leaves the night's report intact.
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { makeProject, MATH } from '../helpers/calc.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { reply, startMockApi, toolResults, type MessagesBody, type Reply } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

const isReview = (body: MessagesBody) => (body.tools ?? []).some((t) => t.name === 'StructuredOutput');

/** A night whose agent fixes the maths and writes its report; the reviewer answers `review`. */
async function night(sb: Sandbox, review: (body: MessagesBody) => Reply) {
  let where = { id: '', workspace: '', worktree: '' };
  const reviews: MessagesBody[] = [];
  const api = await startMockApi((body: MessagesBody) => {
    if (isReview(body)) {
      reviews.push(body);
      return toolResults(body).length > 0 ? reply.text('Reviewed.') : review(body);
    }
    const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
    if (done === 0) return reply.write(join(where.worktree, 'math.mjs'), MATH('a - b', 'a * b'));
    if (done === 1) return reply.write(join(where.workspace, 'REPORT.md'), '# Report\nFixed mul.\n');
    return reply.text('Done.');
  });
  try {
    const repo = await makeProject(sb.dir);
    const env = { ...cliEnv(api.url, sb.home), PATH: process.env.PATH, OVERNIGHT_CLAUDE: CLAUDE };
    const flags = ['--repo', repo, '--verify', 'node --test', '--review', '--review-budget', '60s'];
    const r = await sb.run(['launch', '--json', '--duration', '10m', ...flags, 'Fix the maths'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    where = JSON.parse(r.stdout) as typeof where;
    const done = await waitFor(
      async () => {
        await sb.run(['reconcile', '--retry-lock', '2000'], { env });
        return sb.read(sb.state(where.id, 'DONE'));
      },
      { timeout: 120_000, interval: 500, what: 'DONE' },
    );
    await sb.quiesce();
    const result = JSON.parse(
      await waitFor(() => sb.read(join(where.workspace, 'result.json')), { what: 'result.json' }),
    ) as {
      review: Record<string, unknown> | null;
      verify: Record<string, unknown>;
    };
    const details = (await sb.run(['status', where.id], { env })).stdout;
    return { where, done, result, details, reviews };
  } finally {
    await api.close();
  }
}

const FINDINGS = {
  verdict: 'concerns',
  summary: 'The fix is right, but mul has no test for negative numbers.',
  findings: [
    { file: 'math.mjs', line: 3, severity: 'high', text: 'mul(-2, 3) is not tested.' },
    { file: null, line: null, severity: 'low', text: 'The commit message could say why.' },
  ],
};

describe('a reviewer with fresh eyes (real CLI)', () => {
  it('its findings reach status and result.json, beside the verdict; it could change nothing', async ({
    sb,
  }) => {
    assertClaudeInstalled();
    const { done, result, details, reviews } = await night(sb, () =>
      reply.toolUse('StructuredOutput', FINDINGS),
    );
    expect(done).toMatch(/verified: 3 passed, 0 new failures/);
    expect(done).toMatch(/review: concerns \(2 findings, 1 high\)/);
    expect(result.review).toMatchObject({
      verdict: 'concerns',
      findings: [{ severity: 'high', line: 3 }, { severity: 'low' }],
    });
    expect(details).toMatch(/review: +review: concerns \(2 findings, 1 high\): The fix is right/);
    expect(details).toMatch(/high +math\.mjs:3 +mul\(-2, 3\) is not tested\./);
    // It read the brief, the diff and the verdict; its tools could not write.
    const prompt = JSON.stringify(reviews[0]?.messages?.[0] ?? '');
    expect(prompt).toMatch(/Fix the maths/);
    expect(prompt).toMatch(/a \* b/);
    expect(prompt).toMatch(/verified: 3 passed/);
    expect((reviews[0]?.tools ?? []).map((t) => t.name)).not.toContain('Write');
  });

  it('a hostile review is held to its bounds and shown as text', async ({ sb }) => {
    assertClaudeInstalled();
    const hostile = {
      verdict: 'reject',
      summary: `\u001b]0;pwned\u0007\u001b[2J<script>alert(1)</script>${'x'.repeat(1500)}`,
      findings: Array.from({ length: 30 }, (_, i) => ({
        file: `<b>${i}</b>`,
        line: i,
        severity: 'critical',
        text: '\u001b[31mred',
      })),
    };
    const { details, result } = await night(sb, () => reply.toolUse('StructuredOutput', hostile));
    expect(details.includes('\u001b')).toBe(false);
    expect(details).toMatch(/review: reject/);
    expect((result.review?.findings as unknown[]).length).toBeLessThanOrEqual(50);
    const all = (await sb.run(['status', '--all'])).stdout;
    expect(all).toMatch(/needs you/);
  });

  it('a review that fails is said as such, and the report stands', async ({ sb }) => {
    assertClaudeInstalled();
    const { done, result, details } = await night(sb, () =>
      reply.error(500, 'api_error', 'Internal server error'),
    );
    expect(done).toMatch(/^finished: REPORT.md written/);
    expect(result.review).toMatchObject({ verdict: null, unfinished: expect.stringMatching(/error/) });
    expect(details).toMatch(/review did not finish/);
  });
});
