import { describe, expect } from 'vitest';

import { parseRestartLog } from '../../src/core/run/records.js';
import { alive, waitFor, type Call, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The night's limits with the fake agent, no scheduler: transient API trouble, paid extra usage
// (not allowed, then allowed), a report made late by a usage limit, the fallback model, and the
// backoff cut short at the end time. Only the wrapper's passes, the wake timers and the passes a
// test runs as the schedule would drive the runs.

interface Row {
  state: string;
  reason: string;
  restarts: number;
  cause?: string;
  warnings?: { code: string; text: string }[];
  usageWindows?: { fiveHour?: { utilization: number } };
}
const status = async (sb: Sandbox): Promise<Row> => (await sb.status<Row>())[0] as Row;
const modes = (sb: Sandbox, id: string) =>
  parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '').map((r) => r.mode);
const arg = (c: Call | undefined, flag: string) =>
  c && c.argv.includes(flag) ? c.argv[c.argv.indexOf(flag) + 1] : undefined;

describe('transient API trouble', () => {
  it('a per-minute 429 six times in a row with max_restarts 3: waited out with backoff, no restart counted, then work goes on', async ({
    sb,
  }) => {
    const limited = { apiError: { status: 429, type: 'rate_limit_error' } };
    sb.setBehaviour([...Array(6).fill(limited), { work: 60 }]);
    const { id } = await sb.launch('Rate limited', ['--duration', '1h', '--max-restarts', '3'], {
      OVERNIGHT_BACKOFF: '1s',
      OVERNIGHT_BACKOFF_MAX: '1s',
    });
    await waitFor(() => sb.calls()[6], { timeout: 30_000, what: 'the session after six 429s' });
    expect(modes(sb, id)).toEqual(Array(6).fill('retry'));
    const log = parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '');
    expect(log[0]?.reason).toMatch(
      /^the API failed \(429 rate_limit_error, exit 1\): .*; not counted as a restart$/,
    );
    // Each retry waited its backoff after the failure before it (1 s, then 2 s).
    const gaps = log.slice(1).map((r, i) => (r.at.getTime() - (log[i] as { at: Date }).at.getTime()) / 1000);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1);
    expect(sb.read(sb.ws(id, 'FAILED'))).toBeNull();
    expect(await status(sb)).toMatchObject({ state: 'running', restarts: 0 });
  });

  it('an overloaded API past transient_max fails the run with the reason', async ({ sb }) => {
    sb.setBehaviour({ apiError: { status: 529, type: 'overloaded_error' } });
    const { id } = await sb.launch('Overloaded', ['--duration', '1h', '--max-restarts', '1'], {
      OVERNIGHT_TRANSIENT_MAX: '3s',
      OVERNIGHT_BACKOFF: '1s',
    });
    const failed = await waitFor(() => sb.read(sb.ws(id, 'FAILED')), { timeout: 20_000, what: 'FAILED' });
    expect(failed).toMatch(
      /^the API kept failing for \d+s, longer than transient_max \(3s\); last 529 overloaded_error \(exit 1\): API Error: 529 overloaded_error \(fake\)\napi-trouble\n$/,
    );
    expect(modes(sb, id).every((m) => m === 'retry')).toBe(true);
    expect(await status(sb)).toMatchObject({ restarts: 0, cause: 'api-trouble' });
    // The code is recorded with every decision: the waits and retries before it, and the finish.
    const events = sb.events<{ action: string; cause?: string }>(id);
    expect(events.filter((e) => e.action === 'wait').every((e) => e.cause === 'api-trouble')).toBe(true);
    expect(events.at(-1)).toMatchObject({ action: 'finish', cause: 'api-trouble' });
  });
});

describe('paid extra usage', () => {
  it('not allowed: the next pass stops the agent, the run waits for the reset plus limit_margin, then continues uncounted', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 60, overage: { after: 0.3, resetIn: 4 } }, { work: 60 }]);
    const { id } = await sb.launch('Spend only my subscription', ['--duration', '1h'], {
      OVERNIGHT_LIMIT_MARGIN: '1s',
    });
    const pid = await sb.agentPid(id);
    await waitFor(() => sb.read(sb.state(id, 'output.log'))?.includes('"isUsingOverage":true'), {
      what: 'the overage event',
    });
    // The pass a schedule would run.
    const pass = await sb.run(['reconcile']);
    expect(pass.stdout).toContain(
      `${id}: interrupted the agent: paid extra usage: the five_hour limit was reached and allow_overage is off; stopping until it resets`,
    );
    expect(alive(pid)).toBe(false);
    const row = await status(sb);
    expect(row.state).toBe('waiting');
    expect(row.reason).toMatch(
      /^waiting: the five_hour limit was reached and paid extra usage began \(allow_overage is off\): resets \d\d:\d\d; waiting until/,
    );
    // The wake timer starts the next session once the window has reset.
    const second = await sb.agentPid(id, 2);
    expect(sb.calls().find((c) => c.pid === second)?.stdin).toMatch(/^Your session ended/);
    expect(modes(sb, id)).toEqual(['continue']);
    expect((await status(sb)).restarts).toBe(0);
  });

  it('allowed (--allow-overage): it carries on, and status says since when; status shows the windows', async ({
    sb,
  }) => {
    sb.setBehaviour({
      work: 60,
      overage: { after: 0.3, resetIn: 3600 },
      windows: { fiveHour: 0.92, sevenDay: 0.31 },
    });
    const { id } = await sb.launch('Spend what it takes', ['--duration', '1h', '--allow-overage']);
    const pid = await sb.agentPid(id);
    expect(sb.read(sb.state(id, 'run.yaml'))).toMatch(/^allow_overage: true$/m);
    await waitFor(() => sb.read(sb.state(id, 'output.log'))?.includes('"isUsingOverage":true'), {
      what: 'the overage event',
    });
    const pass = await sb.run(['reconcile']);
    expect(pass.stdout).toBe('');
    expect(alive(pid)).toBe(true);
    const row = await status(sb);
    expect(row.warnings).toContainEqual({
      code: 'overage',
      text: expect.stringMatching(/^on extra usage since \d\d:\d\d: /),
    });
    expect(row.usageWindows?.fiveHour?.utilization).toBe(0.92);
    const details = (await sb.run(['status', id])).stdout;
    expect(details).toMatch(/^limits: +5-hour window 92 % used \(resets \d\d:\d\d\), weekly 31 % used/m);
    expect(details).toMatch(/^ {2}└ on extra usage since \d\d:\d\d/m);
  });
});

describe('a usage limit that lifts after the synthesis budget', () => {
  it('waits in state waiting ("report late"), then the synthesis writes the report when it lifts', async ({
    sb,
  }) => {
    sb.setBehaviour([{ limitIn: 7 }, { report: true }]);
    const { id } = await sb.launch('Report late rather than never', ['--duration', '3s'], {
      OVERNIGHT_SYNTHESIS_BUDGET: '2s',
      OVERNIGHT_LIMIT_MARGIN: '1s',
      OVERNIGHT_LATE_REPORT: '1m',
    });
    const row = await waitFor(
      async () => {
        const r = await status(sb);
        return r.reason.includes('report late') ? r : undefined;
      },
      { what: 'the report-late row' },
    );
    expect(row.state).toBe('waiting');
    expect(row.reason).toMatch(
      /^waiting: report late: limit lifts at \d\d:\d\d \(five_hour limit\); the report is written then, from \d\d:\d\d:\d\d$/,
    );
    const done = await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 25_000, what: 'DONE' });
    expect(done).toMatch(/^finished: REPORT\.md written by the synthesis/);
    expect(sb.calls()[1]?.stdin).toMatch(/^Time is up/);
  });
});

describe('fallback model', () => {
  it('--fallback-model is passed to every session and recorded in run.yaml', async ({ sb }) => {
    sb.setBehaviour([{ exit: 1 }, { work: 60 }]);
    const { id } = await sb.launch('Fall back when overloaded', [
      '--duration',
      '1h',
      '--fallback-model',
      'haiku',
    ]);
    await sb.agentPid(id, 2);
    expect(sb.calls().map((c) => arg(c, '--fallback-model'))).toEqual(['haiku', 'haiku']);
    expect(sb.read(sb.state(id, 'run.yaml'))).toMatch(/^fallback_model: haiku$/m);
    const same = await sb.run(['launch', '--model', 'opus', '--fallback-model', 'opus', 'x']);
    expect(same.exitCode).toBe(2);
    expect(same.stderr).toMatch(/the fallback model "opus" is the run's model too/);
  });
});

describe('the backoff before the synthesis', () => {
  it('is cut short at the end time: the synthesis starts then, not when the backoff would end', async ({
    sb,
  }) => {
    sb.setBehaviour([{ exit: 1 }, { exit: 1 }, { report: true }]);
    const { id, endsAt } = await sb.launch('Crash near the end', ['--duration', '4s'], {
      OVERNIGHT_BACKOFF: '10m',
    });
    const synthesis = await waitFor(() => sb.calls()[2], { timeout: 20_000, what: 'the synthesis' });
    expect(synthesis.stdin).toMatch(/^Time is up/);
    expect(synthesis.at).toBeGreaterThanOrEqual(new Date(endsAt).getTime());
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { what: 'DONE' });
  });
});
