import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveExecutable } from '../../src/adapters/which.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/harness.js';

// The sh wrapper's own records, on a machine where flushing to disk is slow (a CI VM after a
// big install, a laptop on battery): what it writes must still be the agent's truth.
describe('the wrapper', () => {
  let sb: Sandbox;
  beforeEach(() => {
    sb = makeSandbox();
  });
  afterEach(() => sb.cleanup());

  it('records the agent’s own exit status when the agent ends while its pid is still being flushed', async () => {
    const bin = join(sb.dir, 'slow-sync');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'sync'), `#!/bin/sh\nsleep 0.5\nexec ${resolveExecutable('sync')} "$@"\n`);
    chmodSync(join(bin, 'sync'), 0o755);
    // The agent is gone long before the pid record is on disk.
    sb.setBehaviour([{ exit: 3 }, { work: 60 }]);
    const { id } = await sb.launch('Exit while the pid is flushed', ['--duration', '1h'], { PATH: `${bin}:${sb.env.PATH}` });
    const record = await waitFor(() => sb.read(sb.state(id, 'agent-1.exit')), { what: 'the exit record' });
    expect(record).toMatch(/^3 1 \d+\n$/);
    // And the pass the wrapper starts at the end survives the pane closing: it resumes the run.
    await sb.agentPid(id, 2);
    expect(sb.read(sb.ws(id, 'restart.log'))).toMatch(/\tresume\texit=3\t/);
  });
});
