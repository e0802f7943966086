import { describe, expect, test } from 'vitest';

import { slurmEnv } from '../../src/adapters/backend/slurm.js';
import type { SlurmJob } from '../../src/core/slurm/jobs.js';
import { endedBy, jobRuns, viewsByName } from '../../src/core/slurm/view.js';
import { decide } from '../../src/core/supervise/decide.js';
import { AFTER_BUDGET, BEFORE_END, ended, observation, session, spec } from './builders.js';

// The slurm backend's pure parts: each session's job from one listing, and what decide makes of a
// job Slurm ended at its time limit.

const job = (over: Partial<SlurmJob>): SlurmJob => ({
  jobId: 1,
  name: 'overnight-run-1',
  userId: 1000,
  state: 'RUNNING',
  node: 'node1',
  exit: { code: null, signal: null },
  restartCount: 0,
  reason: null,
  ...over,
});

describe('viewsByName', () => {
  test("the newest job of each name, overnight's and this user's only", () => {
    const views = viewsByName(
      [
        job({ jobId: 5, state: 'COMPLETED', exit: { code: 0, signal: null } }),
        job({ jobId: 9, state: 'PENDING', restartCount: 1, node: null }),
        job({ jobId: 7, name: 'overnight-run-2', state: 'TIMEOUT' }),
        job({ jobId: 8, name: 'overnight-run-3', userId: 1001 }),
        job({ jobId: 10, name: 'someone-else' }),
      ],
      1000,
    );
    expect([...views.keys()].sort()).toEqual(['overnight-run-1', 'overnight-run-2']);
    expect(views.get('overnight-run-1')).toMatchObject({ jobId: 9, session: 1, restarts: 1, node: null });
    expect(jobRuns(views.get('overnight-run-1'))).toBe(false);
    expect(endedBy(views.get('overnight-run-2'))).toBe('time-limit');
    expect(endedBy(undefined)).toBeNull();
  });

  test('a running job runs; a completing one still does', () => {
    const views = viewsByName(
      [job({}), job({ jobId: 2, name: 'overnight-run-2', state: 'COMPLETING' })],
      1000,
    );
    expect(jobRuns(views.get('overnight-run-1'))).toBe(true);
    expect(jobRuns(views.get('overnight-run-2'))).toBe(true);
  });
});

describe('slurmEnv', () => {
  test("a pass inside a job hands on none of its job's variables, only SLURM_CONF", () => {
    expect(
      slurmEnv({ PATH: '/bin', SLURM_CONF: '/c', SLURM_JOB_ID: '4', SLURM_RESTART_COUNT: '1', HOME: '/h' }),
    ).toEqual({ PATH: '/bin', SLURM_CONF: '/c', HOME: '/h' });
  });
});

describe('decide: a job Slurm ended at its time limit', () => {
  const timedOut = (mode: 'initial' | 'synthesis', over = {}) =>
    observation({
      session: ended(session(mode), { exit: null, started: true, endedBy: 'time-limit' }),
      ...over,
    });

  test('past the end time and the budget: DONE, said as such, not a crash', () => {
    expect(decide(spec(), timedOut('synthesis'), AFTER_BUDGET)).toMatchObject({
      kind: 'finish',
      sentinel: 'DONE',
      cause: 'job-time-limit',
    });
  });

  test('with the report written: DONE as written', () => {
    expect(decide(spec(), timedOut('synthesis', { reportExists: true }), AFTER_BUDGET)).toMatchObject({
      kind: 'finish',
      cause: 'report-written',
    });
  });

  test('with time left (the end time moved later): the conversation continues, no crash counted', () => {
    expect(decide(spec(), timedOut('initial'), BEFORE_END)).toMatchObject({
      kind: 'start',
      mode: 'continue',
      cause: 'job-time-limit',
    });
  });
});
