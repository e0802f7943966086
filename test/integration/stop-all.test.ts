import { statSync } from 'node:fs';
import { describe, expect } from 'vitest';

import { alive } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// `stop --all` marks every run stopped before it stops any agent: the runs further down the list
// cannot start a session (an exit-triggered pass, a timer) while the first ones are being stopped.

describe('stop --all', () => {
  it('marks every run DONE before the first agent is stopped', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const runs = [];
    for (const name of ['one', 'two', 'three']) runs.push(await sb.launch(`Stop ${name}`, ['--name', name]));
    const pids = [];
    for (const r of runs) pids.push(await sb.agentPid(r.id));

    const stop = await sb.run(['stop', '--all']);
    expect(stop.exitCode, stop.stderr).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);

    const mtime = (path: string) => statSync(path).mtimeMs;
    const marked = Math.max(...runs.map((r) => mtime(sb.ws(r.id, 'DONE'))));
    const firstExit = Math.min(...runs.map((r) => mtime(sb.state(r.id, 'agent-1.exit'))));
    expect(marked).toBeLessThanOrEqual(firstExit);
    await sb.quiesce();
    expect(sb.calls()).toHaveLength(3);
    for (const r of runs) expect(sb.read(sb.ws(r.id, 'DONE'))).toContain('stopped by user');
  });
});
