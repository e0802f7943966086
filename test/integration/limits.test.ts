import { describe, expect } from 'vitest';

import { parseRestartLog } from '../../src/core/run/records.js';
import { waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

describe('usage limits', () => {
  it('waits out a limit (reset + limit_margin) in state waiting, then continues; no restart counted', async ({
    sb,
  }) => {
    sb.setBehaviour([{ limitIn: 3 }, { work: 60 }]);
    const launchedAt = Date.now();
    const { id } = await sb.launch('Hit the limit', ['--duration', '1h'], { OVERNIGHT_LIMIT_MARGIN: '2s' });
    const row = await waitFor(
      async () => {
        const rows = await sb.status<{
          state: string;
          reason: string;
          restarts: number;
        }>();
        return rows[0]?.state === 'waiting' && rows[0].reason.includes('limit') ? rows[0] : undefined;
      },
      { what: 'the waiting row' },
    );
    expect(row.reason).toMatch(/^waiting: five_hour limit: resets \d\d:\d\d; waiting until \d\d:\d\d:\d\d$/);
    expect(sb.calls()).toHaveLength(1);

    // Nobody calls reconcile: the wake timer starts the pass when the limit has lifted.
    const second = await waitFor(() => sb.calls()[1], {
      timeout: 20_000,
      what: 'the session after the limit',
    });
    expect(second.at - launchedAt).toBeGreaterThanOrEqual(4_000);
    const log = parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '');
    expect(log.map((r) => [r.mode, r.reason])).toEqual([
      ['continue', 'usage limit lifted (five_hour limit)'],
    ]);
    const after = (await sb.status())[0] as {
      restarts: number;
      state: string;
    };
    expect(after).toMatchObject({ restarts: 0, state: 'running' });
  });

  it('limit wording quoted in the agent text is not a limit: a crash is resumed at once', async ({ sb }) => {
    sb.setBehaviour([
      { text: 'The docs say: Claude AI usage limit reached|1795300000', exit: 1 },
      { work: 60 },
    ]);
    const { id } = await sb.launch('Quote a limit', ['--duration', '1h']);
    await waitFor(() => sb.calls()[1], { timeout: 10_000, what: 'the resumed session' });
    const log = parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '');
    expect(log.map((r) => r.mode)).toEqual(['resume']);
  });
});

describe('refused credentials', () => {
  it('two in a row fail the run with the fix in the reason, using no crash restart', async ({ sb }) => {
    sb.setBehaviour({ auth: true });
    const { id } = await sb.launch('No key', ['--duration', '1h', '--max-restarts', '1']);
    const failed = await waitFor(() => sb.read(sb.ws(id, 'FAILED')), { timeout: 15_000, what: 'FAILED' });
    expect(failed).toMatch(
      /^authentication failed 2 times in a row \(Invalid API key · Fix external API key\); for unattended runs .*claude setup-token/,
    );
    expect(sb.calls()).toHaveLength(2);
    const row = (await sb.status())[0] as { restarts: number };
    expect(row.restarts).toBe(0);
  });
});
