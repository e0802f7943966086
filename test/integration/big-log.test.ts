import { statSync, truncateSync } from 'node:fs';
import { describe, expect } from 'vitest';

import { waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// A 1 GB output.log (a sparse hole: no newline in a whole gigabyte) is supervised like any run:
// its agent is resumed, its end time starts the synthesis, the report ends it.

const GB = 1024 ** 3;

describe('a 1 GB log', () => {
  it('is resumed after a crash, interrupted at its end time, and finished with its report', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 60 }, { work: 60 }, { report: true }]);
    // Room for a loaded two-core machine, as the other slow tests have: the pass that resumes the
    // crash reads the 1 GB hole once (the stream index keeps its place), which took over 20 s there.
    const { id, endsAt } = await sb.launch('Grow a huge log', ['--duration', '60s']);
    const first = await sb.agentPid(id);
    const log = sb.state(id, 'output.log');
    truncateSync(log, statSync(log).size + GB);
    process.kill(first, 'SIGKILL');

    await sb.agentPid(id, 2, 50_000);
    expect(statSync(log).size).toBeGreaterThan(GB);
    const [row] = await sb.status<{
      state: string;
      sessions: number;
    }>();
    expect(row).toMatchObject({ state: 'running', sessions: 2 });
    expect((await sb.run(['logs', id, '--lines', '3'])).stdout).toMatch(/working/);

    await waitFor(() => Date.now() > new Date(endsAt).getTime(), { timeout: 60_000, what: 'the end time' });
    // On a loaded machine the pass that resumed (it read the hole) may still be at work, and
    // serve the end time itself: the synthesis is looked for in the run's events.
    await sb.quiesce(120_000);
    const pass = await sb.run(['reconcile']);
    expect(pass.exitCode, pass.stderr).toBe(0);
    await waitFor(() => sb.events(id).some((e) => e.action === 'start' && e.mode === 'synthesis'), {
      timeout: 60_000,
      what: 'the synthesis started',
    });
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 60_000, what: 'DONE' });
    expect(sb.read(sb.ws(id, 'DONE'))).toMatch(/^finished: REPORT\.md written by the synthesis/);
    expect(sb.read(sb.ws(id, 'REPORT.md'))).toBeTruthy();
  }, 240_000);
});
