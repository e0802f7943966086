import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import {
  exitOf,
  isActive,
  jobOf,
  JOBS_MAX,
  jobsNamed,
  parseSqueueJson,
  stateOf,
  waitStatus,
  type SlurmJob,
} from '../../src/core/slurm/jobs.js';
import { activeJobsOfRun, jobOutcome, type JobOutcome } from '../../src/core/slurm/outcome.js';
import { jobOfLine, parseScontrolJobs } from '../../src/core/slurm/scontrol.js';

// Samples captured from Slurm 22.05.8 (Debian's slurm-wlm) on a single-node test cluster: jobs that
// exited 0, exited 3, killed themselves with SIGKILL, were cancelled, hit their time limit, are
// held, run, and were requeued once (`scontrol requeue`).
const fixture = (name: string) => readFileSync(new URL(`../fixtures/slurm/${name}`, import.meta.url), 'utf8');

const byName = (jobs: SlurmJob[]) =>
  Object.fromEntries(jobs.map((j) => [j.name.replace('overnight-fx-', ''), j]));

const EXPECTED = {
  ok: { state: 'COMPLETED', exit: { code: 0, signal: null }, restartCount: 0, reason: null, node: 'vm' },
  exit3: { state: 'FAILED', exit: { code: 3, signal: null }, reason: 'NonZeroExitCode' },
  killed: { state: 'FAILED', exit: { code: null, signal: 9 }, reason: 'JobLaunchFailure' },
  cancelled: { state: 'CANCELLED', exit: { code: 143, signal: null }, reason: null },
  timeout: { state: 'TIMEOUT', reason: 'TimeLimit' },
  held: { state: 'PENDING', node: null, reason: 'JobHeldUser' },
  running: { state: 'RUNNING', exit: { code: 0, signal: null }, restartCount: 0 },
  requeued: { state: 'RUNNING', restartCount: 1 },
};

describe('squeue --json (22.05)', () => {
  const listing = parseSqueueJson(JSON.parse(fixture('squeue-22.05.json')));
  if ('error' in listing) throw new Error(listing.error);
  const jobs = byName(listing.jobs);

  test('every job read, none skipped', () => {
    expect(listing.skipped).toBe(0);
    expect(listing.truncated).toBe(false);
    expect(Object.keys(jobs).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(Object.entries(EXPECTED))('%s', (name, want) => {
    expect(jobs[name]).toMatchObject({ ...want, userId: 0 });
  });

  test('the time limit ends a job with SIGTERM (reported by state, not by exit)', () => {
    expect(jobs.timeout?.exit.code === 0 || jobs.timeout?.exit.signal === 15).toBe(true);
  });
});

describe('scontrol show job -o (22.05): the same facts', () => {
  const listing = parseScontrolJobs(fixture('scontrol-22.05.txt'));
  if ('error' in listing) throw new Error(listing.error);
  const jobs = byName(listing.jobs);

  test.each(Object.entries(EXPECTED))('%s', (name, want) => {
    expect(jobs[name]).toMatchObject({ ...want, userId: 0 });
  });

  test('timeout: signal 15', () => expect(jobs.timeout?.exit).toEqual({ code: null, signal: 15 }));

  test('no jobs at all', () => {
    expect(parseScontrolJobs('No jobs in the system\n')).toEqual({ jobs: [], skipped: 0, truncated: false });
  });

  test('a name that smuggles a field is skipped, not believed', () => {
    const line =
      'JobId=7 JobName=overnight-r-1 JobState=RUNNING UserId=eve(1001) GroupId=eve(1001) ' +
      'JobState=PENDING Reason=None Restarts=0 ExitCode=0:0 NodeList=n1';
    expect(jobOfLine(line)).toBeNull();
  });

  test('garbage lines are skipped', () => {
    const r = parseScontrolJobs('hello\nJobId=x JobName=y\nJobId=3 JobName=a b\n');
    expect(r).toEqual({ jobs: [], skipped: 3, truncated: false });
  });
});

describe('fields, validated', () => {
  test.each([
    [0, { code: 0, signal: null }],
    [768, { code: 3, signal: null }],
    [9, { code: null, signal: 9 }],
    [36608, { code: 143, signal: null }],
    [-1, { code: null, signal: null }],
    [1e9, { code: null, signal: null }],
    [1.5, { code: null, signal: null }],
  ])('wait status %s', (status, want) => expect(waitStatus(status)).toEqual(want));

  test('exit_code of 23.02 and later: an object', () => {
    const later = { status: ['FAILED'], return_code: { set: true, infinite: false, number: 2 }, signal: {} };
    expect(exitOf(later)).toEqual({ code: 2, signal: null });
    const signalled = { return_code: { set: true, number: 0 }, signal: { id: { set: true, number: 9 } } };
    expect(exitOf(signalled)).toEqual({ code: null, signal: 9 });
    expect(exitOf('3')).toEqual({ code: null, signal: null });
  });

  test('job_state as a string (22.05) or a list (later); unknown words are UNKNOWN', () => {
    expect(stateOf('RUNNING')).toBe('RUNNING');
    expect(stateOf(['PENDING', 'REQUEUED'])).toBe('PENDING');
    expect(stateOf('EXPLODED')).toBe('UNKNOWN');
    expect(stateOf(42)).toBe('UNKNOWN');
    expect(stateOf('x'.repeat(10_000))).toBe('UNKNOWN');
  });

  test('active states keep the duplicate guard closed; finished ones open it', () => {
    for (const s of ['PENDING', 'RUNNING', 'COMPLETING', 'REQUEUED', 'SUSPENDED', 'UNKNOWN'] as const)
      expect(isActive(s)).toBe(true);
    for (const s of ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY'] as const)
      expect(isActive(s)).toBe(false);
  });

  test.each([
    ['no id', { name: 'a' }],
    ['id zero', { job_id: 0, name: 'a' }],
    ['id too big', { job_id: 2 ** 33, name: 'a' }],
    ['name with a space', { job_id: 1, name: 'a b' }],
    ['name with a newline', { job_id: 1, name: 'a\nb' }],
    ['name not a string', { job_id: 1, name: 5 }],
    ['name too long', { job_id: 1, name: 'a'.repeat(2000) }],
    ['an array', [1, 2]],
  ])('a job with %s is skipped', (_what, raw) => expect(jobOf(raw)).toBeNull());

  test('missing fields read as unknown, not as a crash', () => {
    expect(jobOf({ job_id: 5, name: 'overnight-x-1' })).toEqual({
      jobId: 5,
      name: 'overnight-x-1',
      userId: null,
      state: 'UNKNOWN',
      node: null,
      exit: { code: null, signal: null },
      restartCount: 0,
      reason: null,
    });
  });

  test.each([
    ['null', null],
    ['a list', []],
    ['no jobs', { meta: {} }],
    ['an error', { errors: [{ error: 'boom' }] }],
  ])('listing: %s is an error', (_what, data) => expect(parseSqueueJson(data)).toHaveProperty('error'));

  test('a huge listing is bounded', () => {
    const jobs = Array.from({ length: JOBS_MAX + 5 }, (_, i) => ({ job_id: i + 1, name: `j${i}` }));
    const r = parseSqueueJson({ jobs });
    expect(r).toMatchObject({ truncated: true, skipped: 0 });
    expect('jobs' in r && r.jobs.length).toBe(JOBS_MAX);
  });
});

describe('jobsNamed', () => {
  const job = (jobId: number, name: string, userId: number | null): SlurmJob => ({
    jobId,
    name,
    userId,
    state: 'RUNNING',
    node: 'n1',
    exit: { code: null, signal: null },
    restartCount: 0,
    reason: null,
  });
  const jobs = [
    job(1, 'overnight-a-1', 7),
    job(3, 'overnight-a-1', 7),
    job(2, 'overnight-a-1', 8),
    job(4, 'overnight-a-12', 7),
  ];

  test('exact name, newest first, only ours', () => {
    expect(jobsNamed(jobs, 'overnight-a-1', { uid: 7 }).map((j) => j.jobId)).toEqual([3, 1]);
  });
  test('prefix', () => {
    expect(jobsNamed(jobs, 'overnight-a-', { prefix: true, uid: 7 }).map((j) => j.jobId)).toEqual([4, 3, 1]);
  });
  test('uid unknown: every owner', () => {
    expect(jobsNamed(jobs, 'overnight-a-1').map((j) => j.jobId)).toEqual([3, 2, 1]);
  });
});

describe('jobOutcome: the fixtures in closed words', () => {
  const listing = parseSqueueJson(JSON.parse(fixture('squeue-22.05.json')));
  if ('error' in listing) throw new Error(listing.error);
  const jobs = byName(listing.jobs);

  test.each<[string, JobOutcome]>([
    ['ok', { kind: 'exited', code: 0, signal: null }],
    ['exit3', { kind: 'exited', code: 3, signal: null }],
    ['killed', { kind: 'exited', code: null, signal: 9 }],
    ['cancelled', { kind: 'ended-by-slurm', why: 'cancelled' }],
    ['timeout', { kind: 'ended-by-slurm', why: 'time-limit' }],
    ['held', { kind: 'pending', held: true }],
    ['running', { kind: 'running', node: 'vm' }],
    ['requeued', { kind: 'running', node: 'vm' }],
  ])('%s', (name, want) => expect(jobOutcome(jobs[name] as SlurmJob)).toEqual(want));

  const job = (over: Partial<SlurmJob>): SlurmJob => ({
    jobId: 1,
    name: 'overnight-r-1',
    userId: 0,
    state: 'PENDING',
    node: null,
    exit: { code: null, signal: null },
    restartCount: 0,
    reason: null,
    ...over,
  });

  test.each<[Partial<SlurmJob>, JobOutcome]>([
    [
      { state: 'PENDING', reason: 'BeginTime', restartCount: 1 },
      { kind: 'pending', held: true },
    ],
    [
      { state: 'PENDING', reason: 'Priority' },
      { kind: 'pending', held: false },
    ],
    [{ state: 'REQUEUE_HOLD' }, { kind: 'pending', held: true }],
    [{ state: 'NODE_FAIL' }, { kind: 'ended-by-slurm', why: 'node-failure' }],
    [{ state: 'OUT_OF_MEMORY' }, { kind: 'ended-by-slurm', why: 'out-of-memory' }],
    [{ state: 'UNKNOWN' }, { kind: 'unknown', state: 'UNKNOWN' }],
  ])('%j', (over, want) => expect(jobOutcome(job(over))).toEqual(want));

  test("the guard: a run's active jobs, of any session, ours only", () => {
    const all = [
      job({ jobId: 1, name: 'overnight-r-1', state: 'COMPLETED' }),
      job({ jobId: 2, name: 'overnight-r-2', state: 'PENDING' }),
      job({ jobId: 3, name: 'overnight-r-2-1', state: 'RUNNING' }),
      job({ jobId: 4, name: 'overnight-r-3', state: 'RUNNING', userId: 1001 }),
      job({ jobId: 5, name: 'overnight-r-4', state: 'UNKNOWN' }),
    ];
    expect(activeJobsOfRun(all, 'r', 0).map((j) => j.jobId)).toEqual([5, 2]);
    expect(activeJobsOfRun(all, 'q', 0)).toEqual([]);
  });
});
