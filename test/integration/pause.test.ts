import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor } from '../helpers/harness.js';
import { BACKENDS, it, itOn } from '../helpers/sandbox.js';

describe('pause and resume', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('a paused run whose agent dies is not restarted until it is resumed', async ({ sb }) => {
      sb.setBehaviour({ work: 60 });
      const { id } = await sb.launch('Pause me', ['--duration', '1h']);
      const pid = await sb.agentPid(id);
      const paused = await sb.run(['pause', id.slice(0, 18)]);
      expect(paused.exitCode, paused.stderr).toBe(0);
      expect(existsSync(sb.state(id, 'PAUSE'))).toBe(true);

      process.kill(pid, 'SIGKILL');
      await waitFor(() => sb.read(sb.state(id, 'agent-1.exit')), { what: 'the exit record' });
      await sb.quiesce();
      await sb.run(['reconcile']);
      expect(sb.calls()).toHaveLength(1);
      const row = (await sb.status())[0] as {
        state: string;
        reason: string;
      };
      expect(row.state).toBe('paused');
      expect(row.reason).toMatch(/^paused/);

      expect((await sb.run(['resume', id])).exitCode).toBe(0);
      await sb.run(['reconcile']);
      await waitFor(() => sb.calls()[1], { what: 'the resumed agent' });
    });
  });

  it('a paused run whose agent still works: status <run> says it is running, paused', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Pause me while I work', ['--duration', '1h']);
    await sb.agentPid(id);
    expect((await sb.run(['pause', id])).exitCode).toBe(0);
    const text = await sb.run(['status', id]);
    expect(text.stdout).toMatch(/session 1 started → .*running, paused/);
    expect(text.stdout).not.toMatch(/ended without an exit status/);
    const [row] = await sb.status<{
      state: string;
      agentRunning?: boolean;
      timeline: { kind: string; end?: { kind: string } }[];
    }>([id]);
    expect(row?.state).toBe('paused');
    expect(row?.agentRunning).toBe(true);
    expect(row?.timeline.find((e) => e.kind === 'session')?.end).toMatchObject({ kind: 'running' });
  });

  it('pause --all pauses every run through one file in the runs root; resume --all lifts it', async ({
    sb,
  }) => {
    expect((await sb.run(['pause', '--all'])).exitCode).toBe(0);
    expect(existsSync(join(sb.runs, 'PAUSE'))).toBe(true);
    expect((await sb.run(['resume', '--all'])).exitCode).toBe(0);
    expect(existsSync(join(sb.runs, 'PAUSE'))).toBe(false);
    expect((await sb.run(['pause'])).exitCode).toBe(2);
  });

  it('a PAUSE in the runs root holds every run until resume --all', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Pause us all', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    expect((await sb.run(['pause', '--all'])).exitCode).toBe(0);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => sb.read(sb.state(id, 'agent-1.exit')), { what: 'the exit record' });
    await sb.quiesce();
    await sb.run(['reconcile']);
    expect(sb.calls()).toHaveLength(1);
    expect(((await sb.status())[0] as { state: string }).state).toBe('paused');
    expect((await sb.run(['resume', '--all'])).exitCode).toBe(0);
    await sb.run(['reconcile']);
    await waitFor(() => sb.calls()[1], { what: 'the resumed agent' });
  });
});
