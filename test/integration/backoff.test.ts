import { describe, expect } from 'vitest';

import { parseRestartLog } from '../../src/core/run/records.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// No reconcile is called by hand here: the wrapper's own pass and the backoff timer drive the run.
describe('backoff and continuation', () => {
  const restarts = (sb: Sandbox, id: string) => parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '');

  it('a crash loop waits backoff, doubling, between restarts, then the breaker trips', async ({ sb }) => {
    sb.setBehaviour({ exit: 1 });
    const { id } = await sb.launch('Crash again and again', ['--duration', '1h', '--max-restarts', '3'], {
      OVERNIGHT_BACKOFF: '2s',
      OVERNIGHT_MIN_UPTIME: '60s',
    });
    await waitFor(() => sb.read(sb.ws(id, 'FAILED')), { timeout: 40_000, what: 'FAILED' });

    const log = restarts(sb, id);
    expect(log.map((r) => r.mode)).toEqual(['resume', 'resume', 'resume']);
    const gaps = log.slice(1).map((r, i) => (r.at.getTime() - (log[i] as { at: Date }).at.getTime()) / 1000);
    // First restart at once; then 2 s and 4 s of backoff on top of each session's own second or so.
    expect(gaps[0]).toBeGreaterThanOrEqual(2);
    expect(gaps[1]).toBeGreaterThanOrEqual(4);
    expect(gaps[1]).toBeGreaterThan(gaps[0] as number);
    expect(sb.read(sb.ws(id, 'FAILED'))).toMatch(
      /^circuit breaker: 3 restarts, last exit 1: API Error: fake failure 1/,
    );
  });

  it('status says a backing-off run is waiting, and when it tries next', async ({ sb }) => {
    sb.setBehaviour([{ exit: 1 }, { exit: 1 }, { work: 60 }]);
    const { id } = await sb.launch('Back off once', ['--duration', '1h'], { OVERNIGHT_BACKOFF: '20s' });
    const row = await waitFor(
      async () => {
        const rows = await sb.status<{ state: string; reason: string; nextTryAt?: string }>();
        return rows[0]?.nextTryAt ? rows[0] : undefined;
      },
      { timeout: 15_000, what: 'a waiting row' },
    );
    const seen = JSON.stringify({
      row,
      log: sb.read(sb.state(id, 'restart.log')),
      events: sb.read(sb.state(id, 'events.jsonl')),
    });
    expect(row.state, seen).toBe('waiting');
    expect(row.reason, seen).toMatch(
      /^waiting: agent ended \(exit 1\): API Error: fake failure 1; backing off 20s, next try at \d\d:\d\d:\d\d$/,
    );
    expect(restarts(sb, id), seen).toHaveLength(1);
  });

  it('a clean exit with time left continues the same conversation, not counted as a restart', async ({
    sb,
  }) => {
    sb.setBehaviour([{ work: 0 }, { work: 60 }]);
    const { id } = await sb.launch('Stop early', ['--duration', '1h'], { OVERNIGHT_MIN_UPTIME: '0s' });
    await waitFor(() => sb.calls()[1], { timeout: 15_000, what: 'the continuation' });
    const [first, second] = sb.calls();
    expect(second?.argv[second.argv.indexOf('--resume') + 1]).toBe(
      first?.argv[first.argv.indexOf('--session-id') + 1],
    );
    expect(second?.stdin).toMatch(/^Your session ended, but \d+ minutes remain/);
    expect(restarts(sb, id).map((r) => r.mode)).toEqual(['continue']);
    const status = await sb.status<{ restarts: number }>();
    expect(status[0]?.restarts).toBe(0);
  });

  it('exit-triggered recovery: after kill -9 a new agent runs within seconds, with no scheduler and no manual pass', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Crash once', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    process.kill(pid, 'SIGKILL');
    // A deadline, not a timing assertion: the bench measures it (median 0.15 s here).
    const second = await waitFor(() => sb.calls()[1], {
      timeout: 5_000,
      what: 'the second agent within 5 s',
    });
    expect(second.argv).toContain('--resume');
    expect(sb.read(sb.state(id, 'restart.log'))).toMatch(/\tresume\t/);
  });
});
