import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

describe('a bad config file', () => {
  it('reconcile warns, uses the default for that key, and still supervises every run', async ({ sb }) => {
    sb.setBehaviour({ work: 30 });
    const { id } = await sb.launch('Keep going', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    const dir = join(sb.env.XDG_CONFIG_HOME as string, 'overnight');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.yaml'), 'stale_after: soon\nmystery_key: 1\n');

    process.kill(pid, 'SIGKILL');
    await waitFor(() => sb.read(sb.state(id, 'agent-1.exit')), { what: 'the exit record' });
    const pass = await sb.run(['reconcile']);
    expect(pass.exitCode).toBe(0);
    expect(pass.stderr).toMatch(
      /warning: .*config\.yaml: stale_after = "soon" is not valid; expected a duration .*; using the default for it/,
    );
    expect(pass.stderr).toMatch(/unknown key "mystery_key"/);
    await waitFor(() => sb.calls()[1], { what: 'the resumed agent' });

    const status = await sb.run(['status']);
    expect(status.exitCode).toBe(0);
    expect(status.stderr).toMatch(/stale_after/);
    expect(status.stdout).toContain(id);
  });
});
