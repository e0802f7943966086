import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { parseRestartLog } from '../../src/core/run/records.js';
import { alive, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

/** Reconcile passes, as cron would run them, until `check` holds. */
function passesUntil<T>(sb: Sandbox, check: () => T, what: string, timeout: number) {
  return waitFor(
    async () => {
      await sb.run(['reconcile']);
      return check();
    },
    { timeout, interval: 300, what },
  );
}

describe('hangs', () => {
  it('a silent agent is watched, stopped after hang_grace, and resumed as a crash with reason hung', async ({
    sb,
  }) => {
    sb.setBehaviour([{ hang: true }, { work: 60 }]);
    const { id } = await sb.launch('Go silent', ['--duration', '1h'], {
      OVERNIGHT_STALE_AFTER: '1s',
      OVERNIGHT_HANG_GRACE: '1s',
    });
    const pid = await sb.agentPid(id);
    // Passes as cron would run them, until the watchdog has acted.
    await passesUntil(sb, () => sb.calls()[1], 'the session after the hang', 20_000);
    expect(alive(pid)).toBe(false);
    const log = parseRestartLog(sb.read(sb.state(id, 'restart.log')) ?? '');
    expect(log.map((r) => [r.mode, r.reason])).toEqual([
      ['resume', expect.stringMatching(/^stopped as hung/)],
    ]);
    const events = sb.read(sb.state(id, 'events.jsonl')) ?? '';
    expect(events).toMatch(/"action":"watch"/);
    expect(events).toMatch(/"cause":"hang","reason":"no output for \d+s"/);
  });
});

describe('waiting for input', () => {
  it('an agent asking a question nobody will answer fails the run at once, with the question', async ({
    sb,
  }) => {
    sb.setBehaviour({ prompt: 'Do you trust the files in this folder? (y/n)' });
    const { id } = await sb.launch('Ask me', ['--duration', '1h'], {
      OVERNIGHT_STALE_AFTER: '1s',
      OVERNIGHT_HANG_GRACE: '1h',
    });
    const pid = await sb.agentPid(id);
    const failed = await passesUntil(sb, () => sb.read(sb.ws(id, 'FAILED')), 'FAILED', 15_000);
    // The reason for people, then the cause's code.
    expect(failed).toBe(
      'the agent is waiting for input nobody will give: "Do you trust the files in this folder? (y/n)"\nprompt\n',
    );
    await waitFor(() => !alive(pid), { what: 'the agent stopped' });
  });
});

describe('stopping an agent that will not stop', () => {
  it('SIGINT, then SIGTERM, then SIGKILL of the whole process group (its children too)', async ({ sb }) => {
    sb.setBehaviour([{ hang: true, ignoreSigint: true, ignoreSigterm: true, child: true }, { work: 60 }]);
    const { id } = await sb.launch('Refuse to stop', ['--duration', '1h'], {
      OVERNIGHT_STALE_AFTER: '1s',
      OVERNIGHT_HANG_GRACE: '1s',
      OVERNIGHT_STOP_GRACE: '1s',
    });
    const pid = await sb.agentPid(id);
    const child = Number(
      await waitFor(() => sb.read(join(sb.env.FAKE_CLAUDE_LOG as string, 'child.pid')), {
        what: 'the child',
      }),
    );
    await passesUntil(sb, () => sb.calls()[1], 'the session after the hang', 20_000);
    expect(alive(pid)).toBe(false);
    expect(alive(child)).toBe(false);
    expect(sb.read(sb.state(id, 'events.jsonl'))).toMatch(/"signal":"SIGKILL"/);
    expect(sb.read(sb.state(id, 'restart.log'))).toMatch(
      /stopped as hung \(killed by SIGKILL \(exit 137\)\)/,
    );
  });
});
