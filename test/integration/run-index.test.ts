import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import type { Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The runs root's indexes: `.live/` is what a pass looks at, `.finished.jsonl` what status picks
// recent finished runs from; both rebuilt from a full scan when missing.

const DAY = 86400_000;

/** A finished run as finalize leaves it (DONE or FAILED and its summary), listed in the index. */
function finishedRun(sb: Sandbox, id: string, state: 'done' | 'failed', daysAgo: number): void {
  const ws = join(sb.runs, id);
  mkdirSync(ws, { recursive: true });
  mkdirSync(sb.state(id, ''), { recursive: true });
  writeFileSync(sb.state(id, state === 'done' ? 'DONE' : 'FAILED'), `${state} long ago\n`);
  const at = new Date(Date.now() - daysAgo * DAY).toISOString();
  const row = { id, task: `task of ${id}`, state, workspace: ws, restarts: 0, maxRestarts: 5, findings: 0 };
  writeFileSync(
    sb.state(id, 'final.json'),
    JSON.stringify({ ...row, questions: 0, lastOutputAt: at, endsAt: at, reason: `${state} long ago` }),
  );
  appendFileSync(join(sb.runs, '.finished.jsonl'), JSON.stringify({ id, finishedAt: at, state }) + '\n');
}

const ids = async (sb: Sandbox, ...args: string[]) =>
  (await sb.status<{ id: string }>(args)).map((r) => r.id);

describe('the runs indexes', () => {
  it('launch lists a run as live; stop moves it to the finished index', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Index me', ['--duration', '1h']);
    expect(readdirSync(join(sb.runs, '.live'))).toEqual([id]);
    expect((await sb.run(['stop', id])).exitCode).toBe(0);
    expect(readdirSync(join(sb.runs, '.live'))).toEqual([]);
    expect(sb.read(join(sb.runs, '.finished.jsonl'))).toMatch(new RegExp(`"id":"${id}".*"state":"done"`));
  });

  it('status shows live and recent runs without old ones; --all, --since and --state choose', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id: live } = await sb.launch('Still going', ['--duration', '1h']);
    finishedRun(sb, '2026-01-01-0000-old', 'done', 10);
    finishedRun(sb, '2026-01-02-0000-failed', 'failed', 2);
    finishedRun(sb, '2026-01-03-0000-recent', 'done', 1);

    // A run finished a day ago that needs nothing is counted, not listed; a failed one is listed.
    const table = await sb.run(['status']);
    expect(table.stdout).toMatch(/^1 finished run needs nothing · overnight status --all$/m);
    expect(table.stdout).toContain('2026-01-02-0000-failed');
    expect((await sb.run(['status', '--since', '36h'])).stdout).toContain('2026-01-03-0000-recent');
    expect(table.stdout).not.toContain('2026-01-01-0000-old');
    expect(table.stdout).toMatch(/older finished runs hidden; overnight status --all/);
    expect((await sb.run(['status', '--all'])).stdout).toContain('2026-01-01-0000-old');
    expect((await sb.run(['status', '--since', '14d'])).stdout).toContain('2026-01-01-0000-old');

    expect(await ids(sb)).toEqual([
      '2026-01-01-0000-old',
      '2026-01-02-0000-failed',
      '2026-01-03-0000-recent',
      live,
    ]);
    expect(await ids(sb, '--state', 'failed,running')).toEqual(['2026-01-02-0000-failed', live]);
    expect(await ids(sb, '--since', '36h', '--state', 'done')).toEqual(['2026-01-03-0000-recent']);
    const bad = await sb.run(['status', '--state', 'sleeping']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--state "sleeping" is not a state/);
  });

  it('a pass looks only at live runs, and rebuilds both indexes from the runs when they are missing', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id: live } = await sb.launch('Still going', ['--duration', '1h']);
    finishedRun(sb, '2026-01-03-0000-recent', 'done', 1);
    // Not live, and unusable: a pass that looked at it would report it.
    mkdirSync(join(sb.runs, '2026-01-04-0000-not-live'));
    appendFileSync(
      join(sb.runs, '.finished.jsonl'),
      JSON.stringify({
        id: '2026-01-04-0000-not-live',
        finishedAt: new Date().toISOString(),
        state: 'done',
      }) + '\n',
    );
    const pass = await sb.run(['reconcile', '--json']);
    expect(pass.stdout).not.toContain('not-live');
    expect(JSON.parse(pass.stdout)).toEqual([expect.objectContaining({ id: live, action: 'none' })]);

    rmSync(join(sb.runs, '.live'), { recursive: true });
    rmSync(join(sb.runs, '2026-01-04-0000-not-live'), { recursive: true });
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    expect(readdirSync(join(sb.runs, '.live'))).toEqual([live]);
    expect(sb.read(join(sb.runs, '.finished.jsonl'))).toMatch(/"id":"2026-01-03-0000-recent"/);
    expect(existsSync(join(sb.runs, '.live', '2026-01-03-0000-recent'))).toBe(false);
  });
});
