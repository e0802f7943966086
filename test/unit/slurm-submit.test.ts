import { describe, expect, test } from 'vitest';

import { resolveSettings } from '../../src/core/config/settings.js';
import { DEFAULT_SLURM, parseSlurm } from '../../src/core/config/slurm.js';
import type { SlurmJob } from '../../src/core/slurm/jobs.js';
import {
  jobName,
  jobsOfRun,
  parseJobName,
  parseSbatchOutput,
  sbatchArgs,
  timeLimitMinutes,
} from '../../src/core/slurm/submit.js';

describe('job names', () => {
  test.each([
    ['2026-11-21-2315-survey', 1, 'overnight-2026-11-21-2315-survey-1'],
    ['2026-11-21-2315-survey-2', 3, 'overnight-2026-11-21-2315-survey-2-3'],
    ['2026-11-21-2315-夜', 2, 'overnight-2026-11-21-2315-_591c_-2'],
  ])('%s session %i', (run, session, name) => {
    expect(jobName(run, session)).toBe(name);
    expect(parseJobName(name)).toEqual({ run, session });
  });

  test.each(['overnight-x', 'overnight-x-0', 'other-x-1', 'overnight--1', 'overnight-x-123456'])(
    '%s is no session of a run',
    (name) => expect(parseJobName(name)).toBeNull(),
  );

  test("a run's jobs: not those of a run whose id extends it", () => {
    const job = (jobId: number, name: string, userId: number | null = 0): SlurmJob => ({
      jobId,
      name,
      userId,
      state: 'RUNNING',
      node: null,
      exit: { code: null, signal: null },
      restartCount: 0,
      reason: null,
    });
    const jobs = [
      job(1, 'overnight-r-1'),
      job(2, 'overnight-r-2-1'),
      job(3, 'overnight-r-2'),
      job(4, 'overnight-r-3', 1000),
      job(5, 'unrelated'),
    ];
    expect(jobsOfRun(jobs, 'r', 0).map((j) => j.jobId)).toEqual([3, 1]);
    expect(jobsOfRun(jobs, 'r-2', 0).map((j) => j.jobId)).toEqual([2]);
  });
});

describe('sbatch', () => {
  const base = {
    name: 'overnight-r-1',
    cwd: '/shared/runs/r',
    minutes: 90,
    output: '/shared/runs/.overnight/r/slurm-1.log',
    script: '/shared/runs/.overnight/r/batch.sh',
    args: ['/bin/sh', '/opt/overnight/agent.sh', "it's one word", '--', 'claude'],
  };

  test('argv: overnight options, then config, then the script and its args untouched', () => {
    const slurm = { partition: 'long', account: 'lab', mem: '8G', cpus: 2, extra: ['--qos=low'] };
    expect(sbatchArgs({ ...base, slurm })).toEqual([
      '--parsable',
      '--job-name=overnight-r-1',
      '--requeue',
      '--chdir=/shared/runs/r',
      '--time=90',
      '--output=/shared/runs/.overnight/r/slurm-1.log',
      '--open-mode=append',
      '--partition=long',
      '--account=lab',
      '--mem=8G',
      '--cpus-per-task=2',
      '--qos=low',
      '/shared/runs/.overnight/r/batch.sh',
      '/bin/sh',
      '/opt/overnight/agent.sh',
      "it's one word",
      '--',
      'claude',
    ]);
  });

  test('no config: nothing more', () => {
    expect(sbatchArgs({ ...base, slurm: DEFAULT_SLURM })).toHaveLength(8 + base.args.length);
  });

  test.each([
    ['12345', 12345],
    ['12345;cluster-a\n', 12345],
    ['', null],
    ['Submitted batch job 5', null],
    ['0', null],
    ['99999999999', null],
  ])('sbatch printed %j', (out, id) => expect(parseSbatchOutput(out)).toBe(id));

  test.each([
    [0, 0, 1],
    [3600, 1800, 90],
    [61, 0, 2],
    [-600, 1800, 20],
    [-3600, 60, 1],
  ])('time limit: end in %is, budget %is: %i minutes', (inSeconds, budget, minutes) => {
    const now = new Date('2026-11-21T23:15:00Z');
    expect(timeLimitMinutes(now, new Date(now.getTime() + inSeconds * 1000), budget)).toBe(minutes);
  });
});

describe('config: slurm', () => {
  test('all keys', () => {
    const r = parseSlurm({
      partition: 'long,short',
      account: 'lab_42',
      mem: 4096,
      cpus: '2',
      extra: ['--qos=low'],
    });
    expect(r).toEqual({
      slurm: { partition: 'long,short', account: 'lab_42', mem: '4096M', cpus: 2, extra: ['--qos=low'] },
      problems: [],
    });
  });

  test.each([
    ['mem', '8g', '8G'],
    ['mem', '512MB', '512M'],
    ['mem', ' 1T ', '1T'],
  ])('%s %j reads as %j', (key, value, want) => {
    expect(parseSlurm({ [key]: value }).slurm[key as 'mem']).toBe(want);
  });

  test.each([
    ['partition', 'a b', 'partition name'],
    ['partition', '', 'partition name'],
    ['account', ['x'], 'account name'],
    ['mem', '8 gigs', 'such as 4096'],
    ['mem', 0, 'such as 4096'],
    ['cpus', 0, '1 or more'],
    ['cpus', 1.5, '1 or more'],
    ['cpus', 'two', '1 or more'],
    ['extra', '--qos=low', 'a list'],
    ['nodes', 2, 'unknown key "nodes"'],
  ])('%s = %j: a clear error', (key, value, words) => {
    const r = parseSlurm({ [key]: value });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.message).toContain(words);
    expect(r.slurm).toEqual(DEFAULT_SLURM);
  });

  test.each([
    ['-p', 'start with --'],
    ['qos=low', 'start with --'],
    [5, 'a string'],
    ['--job-name=x', '--job-name is set by overnight'],
    ['--output=/tmp/x', '--output is set by overnight'],
    ['--comment=a\nb', 'one line'],
  ])('extra %j refused alone', (opt, words) => {
    const r = parseSlurm({ extra: ['--qos=low', opt, '--exclusive'] });
    expect(r.slurm.extra).toEqual(['--qos=low', '--exclusive']);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.message).toContain(words);
  });

  test('not a mapping', () => {
    expect(parseSlurm('long').problems[0]?.message).toContain('expected a mapping');
    expect(parseSlurm(null).problems).toEqual([]);
  });

  test('in config.yaml: problems name the file and the key, the rest applies', () => {
    const r = resolveSettings({
      home: '/home/ada',
      env: {},
      file: { path: '/c.yaml', data: { slurm: { partition: 'long', cpus: -1 } } },
    });
    expect(r.settings.slurm.partition).toBe('long');
    expect(r.settings.slurm.cpus).toBeNull();
    expect(r.problems).toEqual([
      {
        key: 'slurm.cpus',
        source: '/c.yaml',
        value: -1,
        message: 'expected a whole number of CPUs, 1 or more',
      },
    ]);
  });
});
