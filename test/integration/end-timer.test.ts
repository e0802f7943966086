import { describe, expect } from 'vitest';

import { alive, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// No schedule and no pass at the end time: the run's end timer (armed at launch and by every pass
// that finds it live) interrupts the agent for the synthesis. And a first pass that comes long
// after the end time still gives the synthesis its whole budget.

const ON = { OVERNIGHT_END_TIMER: undefined };

describe('the end timer', () => {
  it('without a schedule, the agent is interrupted at the end time and the synthesis writes REPORT.md', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 600 }, { report: true }]);
    const { id, endsAt } = await sb.launch('End on time', ['--duration', '4s'], ON);
    const pid = await sb.agentPid(id);
    expect(sb.read(sb.state(id, 'wake-end'))).toMatch(new RegExp(`^${endsAt.replace(/\./g, '\\.')} \\d+`));
    // Nobody runs a pass: the timer does, at the end time.
    const synthesis = await waitFor(() => sb.calls()[1], { timeout: 30_000, what: 'the synthesis' });
    expect(synthesis.stdin).toMatch(/^Time is up/);
    expect(synthesis.at).toBeGreaterThanOrEqual(new Date(endsAt).getTime());
    expect(alive(pid)).toBe(false);
    const done = await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 30_000, what: 'DONE' });
    expect(done).toMatch(/^finished: REPORT\.md written by the synthesis/);
  });

  it('a first pass 2 s after end + synthesis_budget: the synthesis has its whole budget, and says how late', async ({
    sb,
  }) => {
    // The budget left over from the end time is gone when the pass comes; the synthesis works 2 s of
    // the 8 s it gets from its own start (room for a slow start on a loaded machine).
    sb.setBehaviour([{ work: 600 }, { work: 2, report: true }]);
    const env = { OVERNIGHT_SYNTHESIS_BUDGET: '8s' };
    const { id, endsAt } = await sb.launch('Wake up late', ['--duration', '3s'], env);
    await sb.agentPid(id);
    const late = new Date(endsAt).getTime() + 8_000 + 2_000;
    await waitFor(() => Date.now() > late, { timeout: 20_000, what: 'end + budget + 2 s' });

    const pass = await sb.run(['reconcile'], { env });
    expect(pass.exitCode, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/started the synthesis/);
    const start = sb
      .events<{ action?: string; reason?: string }>(id)
      .find((e) => e.action === 'start' && /end time reached/.test(e.reason ?? ''));
    expect(start?.reason).toMatch(/the synthesis starts \d+s late, with its whole budget \(8s\)$/);
    // A pass while it writes leaves it alone: its budget runs from its start.
    await waitFor(() => sb.calls()[1], { what: 'the synthesis' });
    const again = await sb.run(['reconcile'], { env });
    expect(again.stdout).not.toMatch(/budget ran out/);
    const done = await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 30_000, what: 'DONE' });
    expect(done).toMatch(/^finished: REPORT\.md written by the synthesis/);
  });
});
