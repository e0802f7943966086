import { describe, expect, test } from 'vitest';

import type { CommandRun } from '../../src/core/doctor/checks.js';
import {
  checkSlurm,
  mungeSocketOf,
  type SlurmFacts,
  type TestJobFacts,
} from '../../src/core/doctor/slurm.js';

const ran = (stdout: string, exitCode: number | null = 0, stderr = '', error?: string): CommandRun =>
  error ? { exitCode, stdout, stderr, error } : { exitCode, stdout, stderr };

const job = (over: Partial<TestJobFacts> = {}): TestJobFacts => ({
  root: '/shared/runs',
  submitted: { jobId: 42 },
  answer: 'tok\nnode7\n',
  token: 'tok',
  state: 'COMPLETED',
  node: 'node7',
  waitedSeconds: 1.2,
  ...over,
});

const healthy = (over: Partial<SlurmFacts> = {}): SlurmFacts => ({
  wanted: true,
  commands: ['sbatch', 'squeue', 'scancel'].map((name) => ({ name, resolved: `/usr/bin/${name}` })),
  version: ran('slurm-wlm 22.05.8\n'),
  ping: ran('Slurmctld(primary) at head is UP\n'),
  munge: { key: '/etc/munge/munge.key', keyExists: null, credential: ran('MUNGE:AwQ...:\n') },
  testJob: job(),
  ...over,
});

const rows = (f: SlurmFacts) => checkSlurm(f).map((r) => [r.name, r.status, r.detail]);

describe('doctor: slurm', () => {
  test('not the chosen backend: no rows at all', () => {
    expect(checkSlurm(healthy({ wanted: false }))).toEqual([]);
  });

  test('everything answers', () => {
    expect(rows(healthy())).toEqual([
      ['slurm', 'ok', 'slurm-wlm 22.05.8: sbatch, squeue, scancel found'],
      ['slurm controller', 'ok', 'Slurmctld(primary) at head is UP'],
      ['munge', 'ok', 'munged makes credentials (key /etc/munge/munge.key not visible to this user)'],
      ['slurm node', 'ok', 'a test job on node7 read and wrote /shared/runs (1.2 s)'],
    ]);
  });

  test.each<[string, Partial<SlurmFacts>, string, RegExp]>([
    [
      'scancel missing',
      {
        commands: [
          { name: 'sbatch', resolved: '/b' },
          { name: 'squeue', resolved: '/q' },
          { name: 'scancel', resolved: null },
        ],
      },
      'problem',
      /^scancel not on PATH/,
    ],
  ])('%s: one row, nothing probed further', (_what, over, status, detail) => {
    const r = checkSlurm(healthy(over));
    expect(r).toHaveLength(1);
    expect(r[0]?.status).toBe(status);
    expect(r[0]?.detail).toMatch(detail);
    expect(r[0]?.fix).toMatch(/slurm-client/);
  });

  const conf = (exists: boolean, fromEnv = false) => ({
    path: fromEnv ? '/lab/slurm.conf' : '/etc/slurm/slurm.conf',
    exists,
    fromEnv,
  });
  test.each<[string, Partial<SlurmFacts>, RegExp, RegExp]>([
    [
      'installed, no slurm.conf: no cluster here, not a reinstall',
      { version: ran('', 1, 'sbatch: error: resolve_ctls_from_dns_srv: Unknown host'), conf: conf(false) },
      /^Slurm's commands are installed \(\/usr\/bin\/sbatch\), but no Slurm cluster is configured here \(no \/etc\/slurm\/slurm\.conf, and SLURM_CONF is unset\): --version failed/,
      /^set SLURM_CONF to your cluster's slurm\.conf, or run overnight on one of the cluster's machines/,
    ],
    [
      'SLURM_CONF names a file that is not there',
      { version: ran('', 1, 'error'), conf: conf(false, true) },
      /but SLURM_CONF names \/lab\/slurm\.conf, which does not exist/,
      /^set SLURM_CONF/,
    ],
    [
      'installed and configured, yet --version fails',
      { version: ran('', 1, 'error: boom'), conf: conf(true) },
      /--version failed \(exit 1: error: boom\)/,
      /^check Slurm's configuration/,
    ],
  ])('%s', (_what, over, detail, fix) => {
    const r = checkSlurm(healthy(over));
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ status: 'problem', detail: expect.stringMatching(detail) });
    expect(r[0]?.fix).toMatch(fix);
    expect(r[0]?.fix).not.toMatch(/slurm-client/);
  });

  test.each<[string, Partial<SlurmFacts>, string, RegExp, RegExp]>([
    [
      'controller down',
      { ping: ran('Slurmctld(primary) at head is DOWN\n', 1) },
      'slurm controller',
      /does not answer \(exit 1: Slurmctld\(primary\) at head is DOWN\)/,
      /SLURM_CONF/,
    ],
    [
      'ping times out',
      { ping: ran('', null, '', 'no answer within 5 s') },
      'slurm controller',
      /no answer within 5 s/,
      /SLURM_CONF/,
    ],
    [
      'munged not running',
      {
        munge: {
          key: '/etc/munge/munge.key',
          keyExists: false,
          credential: ran('', 1, 'munge: Error: Failed to access "/run/munge/munge.socket.2": No such file'),
        },
      },
      'munge',
      /munge -n failed \(exit 1: munge: Error: Failed to access .*\); no key at \/etc\/munge\/munge\.key/,
      /same key/,
    ],
    [
      'test job refused',
      {
        testJob: job({
          submitted: { error: 'sbatch exited 1: invalid partition specified: gpu' },
          answer: null,
        }),
      },
      'slurm node',
      /refused: sbatch exited 1: invalid partition/,
      /partition, account and extra/,
    ],
    [
      'test job failed without reading the root',
      { testJob: job({ answer: null, state: 'FAILED' }) },
      'slurm node',
      /ended FAILED on node7 without reading \/shared\/runs: .*not visible/,
      /shared|NFSv4/,
    ],
    [
      'test job read another file (a different filesystem at the same path)',
      { testJob: job({ answer: 'other\nnode7\n' }) },
      'slurm node',
      /read another file/,
      /same path/,
    ],
  ])('%s: a problem with its fix', (_what, over, name, detail, fix) => {
    const r = checkSlurm(healthy(over)).find((c) => c.name === name);
    expect(r?.status).toBe('problem');
    expect(r?.detail).toMatch(detail);
    expect(r?.fix).toMatch(fix);
  });

  test('test job still pending at the deadline: a warning, not a verdict', () => {
    const r = checkSlurm(
      healthy({ testJob: job({ answer: null, state: 'PENDING', node: null, waitedSeconds: 30 }) }),
    );
    expect(r.at(-1)).toMatchObject({
      name: 'slurm node',
      status: 'warning',
      detail: 'test job 42 did not start within 30 s (cancelled)',
    });
  });
});

describe('mungeSocketOf', () => {
  test.each([
    ['AuthType=auth/munge\nAuthInfo=socket=/tmp/c/munge.socket\n', '/tmp/c/munge.socket'],
    ['authinfo = cred_expire=60,socket=/run/m.sock\n', '/run/m.sock'],
    ['# AuthInfo=socket=/x\n', null],
    ['AuthInfo=cred_expire=60\n', null],
    ['', null],
  ])('%j', (conf, socket) => expect(mungeSocketOf(conf)).toBe(socket));
});
