import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';

import { SYNTHESIS_PROMPT } from '../../src/core/agent/briefing.js';
import { alive, records, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

describe('finish', () => {
  it('during a live session: the end time becomes now, the agent is interrupted, the synthesis reports, DONE', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 120, finding: 'never.md' }, { report: true }]);
    const { id, workspace, endsAt } = await sb.launch('Survey everything', ['--name', 'long night']);
    const pid = await sb.agentPid(id);
    const before = Date.now();

    const r = await sb.run(['finish', 'long night']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${id}: the end time is now`);
    expect(r.stdout).toMatch(new RegExp(`^${id}: interrupted the agent: end time reached`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^${id}: started the synthesis`, 'm'));
    expect(r.stdout).toContain(`The report goes to ${workspace}/REPORT.md`);
    expect(alive(pid)).toBe(false);
    // SIGINT, the gentle way: the fake exits 0 on it.
    expect(sb.read(sb.state(id, 'agent-1.exit'))).toMatch(/^0 1 \d+/);

    const done = await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' });
    await sb.quiesce();
    expect(done).toMatch(/REPORT\.md/);
    expect(existsSync(join(workspace, 'REPORT.md'))).toBe(true);
    expect(sb.calls()[1]?.stdin).toBe(SYNTHESIS_PROMPT);

    // Recorded: run.yaml's end time is when finish ran, and the events log says who moved it.
    const ends = new Date(
      (parse(sb.read(join(records(workspace), 'run.yaml')) ?? '') as { ends_at: string }).ends_at,
    );
    expect(ends.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(ends.getTime()).toBeLessThanOrEqual(Date.now());
    expect(sb.events(id).find((e) => e.action === 'finish')).toMatchObject({
      reason: 'finished early by user',
      was: endsAt,
      endsAt: ends.toISOString(),
    });
    const [row] = await sb.status([id]);
    expect(row).toMatchObject({ state: 'done', endsAt: ends.toISOString() });
    // The night's story says the person ended it, from the cause codes, not the clock.
    const story = (await sb.run(['status', id])).stdout;
    expect(story).toMatch(/session 1 interrupted: finished early by user \(overnight finish\)/);
    expect(story).toMatch(/session 2, the synthesis, started: finished early by user/);
    expect(story).not.toContain('end time reached');

    // Twice is fine: nothing more happens.
    const again = await sb.run(['finish', id]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/already finished \(DONE: finished: REPORT\.md written by the synthesis\)/);
  });

  it('a paused run: its pause is lifted, for the report is what was asked for', async ({ sb }) => {
    sb.setBehaviour([{ work: 120 }, { report: true }]);
    const { id, workspace } = await sb.launch('Paused and finished');
    await sb.agentPid(id);
    expect((await sb.run(['pause', id])).exitCode).toBe(0);
    const r = await sb.run(['finish', id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${id}: its pause is lifted`);
    expect(r.stdout).toMatch(/started the synthesis/);
    await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' });
    expect(existsSync(join(records(workspace), 'PAUSE'))).toBe(false);
  });
});
