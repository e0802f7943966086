import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { SYNTHESIS_PROMPT } from '../../src/core/agent/briefing.js';
import { alive, records, snapshot, waitFor, type Call } from '../helpers/harness.js';
import { BACKENDS, it, itOn } from '../helpers/sandbox.js';

const arg = (c: Call, flag: string) => (c.argv.includes(flag) ? c.argv[c.argv.indexOf(flag) + 1] : undefined);

describe('lifecycle', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    const it = itOn(backend);

    it('after the end time: a synthesis session (--resume, "Time is up") writes REPORT.md, then DONE', async ({
      sb,
    }) => {
      // The first session outlives the end time, then exits 0 by itself; the synthesis writes the report.
      sb.setBehaviour([{ work: 4 }, { report: true }]);
      const { id, workspace, endsAt } = await sb.launch('Run out of time', ['--duration', '2s']);
      const first = await waitFor(() => sb.calls()[0]);
      const done = await waitFor(() => sb.read(join(workspace, 'DONE')), { timeout: 20_000, what: 'DONE' });
      await sb.quiesce();

      expect(Date.now()).toBeGreaterThan(new Date(endsAt).getTime());
      const calls = sb.calls();
      expect(calls).toHaveLength(2);
      const synthesis = calls[1] as Call;
      expect(arg(synthesis, '--resume')).toBe(arg(first, '--session-id'));
      expect(synthesis.stdin).toBe(SYNTHESIS_PROMPT);
      expect(synthesis.stdin.startsWith('Time is up')).toBe(true);
      expect(existsSync(join(workspace, 'REPORT.md'))).toBe(true);
      expect(done).toMatch(/REPORT\.md/);
      expect(existsSync(join(workspace, 'FAILED'))).toBe(false);
      const lines = (sb.read(join(records(workspace), 'restart.log')) ?? '')
        .split('\n')
        .filter((l) => l !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/\tsynthesis\t/);

      const [row] = await sb.status<{
        state: string;
        restarts: number;
        reason: string;
        backend: string;
      }>();
      // A synthesis is not a crash restart; the run says which backend ran it.
      expect(row).toMatchObject({ state: 'done', restarts: 0, backend });
      expect(row?.reason).toMatch(/REPORT\.md/);
      expect(await sb.hasSession(id)).toBe(false);
    });

    it('reconcile --dry-run says what it would do and changes nothing; reconcile then interrupts the live agent (SIGINT) for the synthesis', async ({
      sb,
    }) => {
      sb.setBehaviour([{ work: 60 }, { report: true }]);
      const { id, workspace, endsAt } = await sb.launch('Work past the end', ['--duration', '3s']);
      const pid = await sb.agentPid(id);
      await waitFor(() => Date.now() > new Date(endsAt).getTime() + 200, { what: 'end time passed' });
      expect(alive(pid)).toBe(true);

      const before = snapshot(workspace);
      const dry = await sb.run(['reconcile', '--dry-run']);
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(new RegExp(`^${id}: would .*interrupt`, 'm'));
      expect(alive(pid)).toBe(true);
      expect(sb.calls()).toHaveLength(1);
      const after = snapshot(workspace);
      delete before['output.log']; // the live agent is still writing its stream
      delete after['output.log'];
      expect(after).toEqual(before);
      expect(existsSync(join(sb.runs, '.reconcile.lock'))).toBe(false);

      const r = await sb.run(['reconcile']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/interrupted the agent/);
      expect(r.stdout).toMatch(/started the synthesis/);
      expect(alive(pid)).toBe(false);
      // SIGINT, not a harder signal: the fake exits 0 on SIGINT, 143 on SIGTERM.
      expect(sb.read(sb.state(id, 'agent-1.exit'))).toMatch(/^0 1 \d+/);
      expect(sb.events(id).find((e) => e.action === 'interrupt')).toMatchObject({ signal: 'SIGINT' });

      const synthesis = await waitFor(() => sb.calls()[1]);
      expect(synthesis.argv).toContain('--resume');
      expect(synthesis.stdin).toBe(SYNTHESIS_PROMPT);
      expect(await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' })).toMatch(/REPORT\.md/);
    });

    it('stop <unique prefix> ends the agent and its session with DONE "stopped by user"; again is a no-op; --all stops the rest', async ({
      sb,
    }) => {
      sb.setBehaviour({ work: 60 });
      const alpha = await sb.launch('First to stop', ['--name', 'alpha-run']);
      const bravo = await sb.launch('Second to stop', ['--name', 'bravo-run']);
      const alphaPid = await sb.agentPid(alpha.id);
      const bravoPid = await sb.agentPid(bravo.id);
      const prefix = alpha.id.slice(0, -'ha-run'.length); // "...-alp": unique among the two

      const r = await sb.run(['stop', prefix]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain(alpha.id);
      expect(alive(alphaPid)).toBe(false);
      expect(sb.read(sb.state(alpha.id, 'agent-1.exit'))).toMatch(/^0 1 /); // SIGINT sufficed: exit 0
      expect(await sb.hasSession(alpha.id)).toBe(false);
      expect(sb.read(join(alpha.workspace, 'DONE'))).toContain('stopped by user');
      expect(alive(bravoPid)).toBe(true);

      const again = await sb.run(['stop', prefix]);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/already finished/);

      const all = await sb.run(['stop', '--all']);
      expect(all.exitCode, all.stderr).toBe(0);
      expect(all.stdout).toContain(bravo.id);
      expect(all.stdout).not.toContain(alpha.id);
      expect(alive(bravoPid)).toBe(false);
      expect(await sb.hasSession(bravo.id)).toBe(false);
      expect(sb.read(join(bravo.workspace, 'DONE'))).toContain('stopped by user');

      // The wrappers' own passes after the interrupted agents must not bring anything back.
      await sb.quiesce();
      expect(sb.calls()).toHaveLength(2);
      const st = await sb.status<{
        state: string;
        reason: string;
        lastTransition: Record<string, unknown>;
      }>();
      expect(st.map((s) => [s.state, s.reason])).toEqual([
        ['done', 'stopped by user'],
        ['done', 'stopped by user'],
      ]);
      for (const s of st)
        expect(s.lastTransition).toMatchObject({ to: 'done', action: 'stop', reason: 'stopped by user' });
      const none = await sb.run(['stop', '--all']);
      expect(none.exitCode).toBe(0);
    });
  });

  it('stop of an unknown run is a usage error (exit 2) naming it', async ({ sb }) => {
    const r = await sb.run(['stop', 'nosuchrun']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('nosuchrun');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('the run keeps its tmux server: stop from a shell without the launching TMUX_TMPDIR still removes its session', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Remember my server', ['--duration', '1h']);
    await sb.agentPid(id);
    expect(sb.read(sb.state(id, 'run.yaml'))).toContain(`tmux_socket: ${sb.env.TMUX_TMPDIR}/tmux-`);
    const stopped = await sb.run(['stop', id], { env: { TMUX_TMPDIR: undefined } });
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(await sb.hasSession(id)).toBe(false);
  });

  it('an agent that outlived its killed tmux server is still running, and stop still ends it', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id, workspace } = await sb.launch('Outlive my server', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    await sb.tmux(['kill-server']);
    // The agent has its own process group: the server's hang-up reaches only the wrapper.
    await waitFor(async () => !(await sb.hasSession(id)), { what: 'the tmux session gone' });
    expect(alive(pid)).toBe(true);
    const [row] = await sb.status<{ state: string }>();
    expect(row?.state).toBe('running');

    const stopped = await sb.run(['stop', id]);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(sb.read(join(workspace, 'DONE'))).toContain('stopped by user');
  });
});
