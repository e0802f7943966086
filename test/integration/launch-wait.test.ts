import { describe, expect } from 'vitest';

import { waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// `launch --wait`: the first seconds watched, and exit 1 with the reason when the run fails or is
// about to; never a "Launched" and 0 for a night that dies on a refused login.

describe('launch --wait', () => {
  it('a refused login: exit 1, with the reason and the fix; the run is there to read', async ({ sb }) => {
    sb.setBehaviour({ auth: true });
    const r = await sb.run(['launch', '--wait=30s', '--name', 'nokey', '--duration', '1h', 'No key']);
    expect(r.exitCode, r.stdout).toBe(1);
    const id = /^Launched (\S+)$/m.exec(r.stdout)?.[1] as string;
    expect(r.stdout).toContain('Watching its first 30s (--no-wait to skip)');
    // About to fail (refused once, tried once more) or failed (refused twice): either is said.
    expect(r.stderr).toMatch(
      new RegExp(
        `^${id} (is about to fail|failed within 30s): authentication failed .*claude setup-token`,
        'm',
      ),
    );
    expect(r.stderr).toContain(`overnight status ${id}`);
    await waitFor(() => sb.read(sb.ws(id, 'FAILED')), { what: 'FAILED' });
    await sb.quiesce();
  });

  it('a healthy run: exit 0 once the time is up; --json waits only when asked', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const r = await sb.run(['launch', '--json', '--wait=2s', '--duration', '1h', 'Healthy']);
    expect(r.exitCode, r.stderr).toBe(0);
    const { id } = JSON.parse(r.stdout) as { id: string };
    expect(r.stderr).not.toMatch(/about to fail|failed within/);
    // Not on a terminal and not asked: no wait at all (the default is the terminal's).
    const quick = await sb.run(['launch', '--json', '--duration', '1h', 'Quick']);
    expect(quick.exitCode, quick.stderr).toBe(0);
    await sb.run(['stop', '--all']);
    await sb.quiesce();
    expect(id).toBeTruthy();
  });

  it('a wait launch cannot take is refused before anything is made', async ({ sb }) => {
    const r = await sb.run(['launch', '--wait=forever', 'Never']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^overnight: --wait forever is not a wait launch can take; give a duration such as/m,
    );
    expect(sb.calls()).toEqual([]);
    expect((await sb.run(['status', '--json'])).stdout.trim()).toBe('[]');
  });
});
