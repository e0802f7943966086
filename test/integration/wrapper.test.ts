import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { resolveExecutable } from '../../src/adapters/which.js';
import { alive, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The sh wrapper's own records, on a machine where flushing to disk is slow (a CI VM after a
// big install, a laptop on battery): what it writes must still be the agent's truth.
describe('the wrapper', () => {
  it('records the agent’s own exit status when the agent ends while its pid is still being flushed', async ({
    sb,
  }) => {
    const bin = join(sb.dir, 'slow-sync');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'sync'), `#!/bin/sh\nsleep 0.5\nexec ${resolveExecutable('sync')} "$@"\n`);
    chmodSync(join(bin, 'sync'), 0o755);
    // The agent is gone long before the pid record is on disk.
    sb.setBehaviour([{ exit: 3 }, { work: 60 }]);
    const { id } = await sb.launch('Exit while the pid is flushed', ['--duration', '1h'], {
      PATH: `${bin}:${sb.env.PATH}`,
    });
    const record = await waitFor(() => sb.read(sb.state(id, 'agent-1.exit')), { what: 'the exit record' });
    expect(record).toMatch(/^3 1 \d+\n$/);
    // And the pass the wrapper starts at the end survives the pane closing: it resumes the run.
    await sb.agentPid(id, 2);
    expect(sb.read(sb.state(id, 'restart.log'))).toMatch(/\tresume\texit=3\t/);
  });

  it('shows a person attaching what runs there and how to follow it; their Ctrl-C leaves the agent and the wrapper running', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id, session } = await sb.launch('Watch me work', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    const pane = async () => (await sb.tmux(['capture-pane', '-p', '-t', `=${session}:`])).stdout;
    const shown = await waitFor(async () => ((await pane()).includes('overnight logs -f') ? pane() : null), {
      what: 'the header in the pane',
    });
    expect(shown).toContain(`overnight: run ${id}, session 1, agent pid ${pid}`);
    expect(shown).toContain(`(anywhere: overnight logs -f ${id})`);
    expect(shown).toContain(`overnight stop ${id}`);

    await sb.tmux(['send-keys', '-t', `=${session}:`, 'C-c']);
    // Nothing is to happen: look again once the keys have surely been delivered (tmux answers in order).
    await sb.tmux(['send-keys', '-t', `=${session}:`, 'C-c']);
    await sb.tmux(['display-message', '-p', '-t', `=${session}:`, 'x']);
    expect(alive(pid)).toBe(true);
    expect(await sb.hasSession(id)).toBe(true);
    expect(sb.read(sb.state(id, 'agent-1.exit'))).toBeNull();
  });
});
