import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import type { Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// --backend slurm where Slurm's client commands are installed but no cluster is configured, as a
// new user meets it: doctor says so (not to install what is installed), and launch refuses before
// it makes anything. The commands are fakes that answer as Slurm's do without a slurm.conf.

const NO_CLUSTER = 'error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host';

/** sbatch, squeue, scancel and scontrol that fail as without a cluster, or (`up`) ping answers UP. */
function fakeSlurm(sb: Sandbox, up = false): Record<string, string> {
  const bin = join(sb.dir, 'slurm-bin');
  mkdirSync(bin, { recursive: true });
  for (const cmd of ['sbatch', 'squeue', 'scancel', 'scontrol']) {
    const ping =
      up && cmd === 'scontrol'
        ? '[ "$1" = ping ] && { echo "Slurmctld(primary) at head is UP"; exit 0; }\n'
        : '';
    writeFileSync(join(bin, cmd), `#!/bin/sh\n${ping}echo "${cmd}: ${NO_CLUSTER}" >&2\nexit 1\n`);
    chmodSync(join(bin, cmd), 0o755);
  }
  return { PATH: `${bin}:${sb.env.PATH}`, SLURM_CONF: join(sb.dir, 'no-cluster', 'slurm.conf') };
}

/** What is in the runs root besides its own files: a run's directory, records, temp or env file. */
function runsLeft(sb: Sandbox): string[] {
  const under = (dir: string) => (existsSync(join(sb.runs, dir)) ? readdirSync(join(sb.runs, dir)) : []);
  const runs = (existsSync(sb.runs) ? readdirSync(sb.runs) : []).filter((f) => /^\d{4}-/.test(f));
  return [
    ...runs,
    ...under('.overnight').filter((f) => /^\d{4}-/.test(f)),
    ...under('.run-tmp'),
    ...under('.agent-env'),
  ];
}

describe('--backend slurm without a cluster', () => {
  it('doctor says no cluster is configured here, and how to point at one, not to install the commands', async ({
    sb,
  }) => {
    const env = { ...fakeSlurm(sb), OVERNIGHT_BACKEND: 'slurm' };
    const r = await sb.run(['doctor'], { env });
    expect(r.stdout).toMatch(
      /^problem\s+slurm\s+Slurm's commands are installed \(.*sbatch\), but SLURM_CONF names .*no-cluster\/slurm\.conf, which does not exist: --version failed/m,
    );
    expect(r.stdout).toMatch(/fix: set SLURM_CONF to your cluster's slurm\.conf, or run overnight on one of/);
    expect(r.stdout).not.toContain('slurm-client');
  });

  it('launch refuses before it makes anything, and says why and what to do', async ({ sb }) => {
    const r = await sb.run(['launch', '--backend', 'slurm', 'Survey CRDT libraries'], { env: fakeSlurm(sb) });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'the slurm backend cannot reach a Slurm controller from here (scontrol ping exited 1',
    );
    expect(r.stderr).toContain('SLURM_CONF names');
    expect(r.stderr).toContain('launch with --backend tmux or detached. Nothing was created');
    expect(runsLeft(sb)).toEqual([]);
  });

  it('a first session that cannot start takes its records and temp directory with it', async ({ sb }) => {
    // The controller answers a ping, but the listing the start needs fails: made, then taken back.
    const r = await sb.run(['launch', '--backend', 'slurm', 'Survey CRDT libraries'], {
      env: fakeSlurm(sb, true),
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('could not start the agent: cannot ask Slurm before starting');
    expect(runsLeft(sb)).toEqual([]);
    expect((await sb.status()).length).toBe(0);
  });
});
