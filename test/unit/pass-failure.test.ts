import { describe, expect, test } from 'vitest';

import { checkPasses } from '../../src/core/doctor/schedule.js';
import { describeIoError } from '../../src/core/io-error.js';
import { lazyLocalTime, localTime } from '../../src/core/local-time.js';
import { parseHeartbeat } from '../../src/core/schedule/marker.js';
import { passFailure, passFailureFix } from '../../src/core/status/supervision.js';
import { at } from './builders.js';

// A pass that fails (a full disk) says so in the heartbeat; status and doctor say it plainly.

const utc = localTime('UTC');

describe('describeIoError', () => {
  test.each([
    {
      name: 'ENOSPC with its code',
      err: { code: 'ENOSPC', message: "ENOSPC: no space left on device, open '/r/x'" },
      want: 'no space left on the disk (ENOSPC)',
    },
    {
      name: 'a code only in a wrapped message',
      err: { message: "/r/x: EROFS: read-only file system, open '/r/x'" },
      want: 'read-only filesystem (EROFS)',
    },
    {
      name: 'an unknown code keeps its own words',
      err: { message: 'EWEIRD: something odd, open' },
      want: 'something odd (EWEIRD)',
    },
    {
      name: 'no code → the message as it is',
      err: { message: 'tmux could not start session x' },
      want: 'tmux could not start session x',
    },
  ])('$name → $want', ({ err, want }) => {
    expect(describeIoError(err)).toBe(want);
  });
});

describe('passFailure', () => {
  const beat = (extra: Record<string, unknown>) =>
    parseHeartbeat({ at: at('03:00').toISOString(), scheduledAt: null, ...extra });
  test.each([
    {
      name: 'failing since 02:14 on a full disk → said with its time',
      raw: { lastError: 'no space left on the disk (ENOSPC)', failingSince: at('02:14').toISOString() },
      want: 'passes are failing since 02:14: no space left on the disk (ENOSPC)',
    },
    {
      name: 'an error without a start → since the last pass',
      raw: { lastError: 'boom' },
      want: 'passes are failing since 03:00: boom',
    },
    { name: 'a pass that went through → nothing', raw: {}, want: null },
  ])('$name', ({ raw, want }) => {
    expect(passFailure(beat(raw), utc)).toBe(want);
  });

  test.each([
    { errno: 'ENOSPC', want: /^free space on the disk that holds \/runs/ },
    { errno: 'EDQUOT', want: /^free space/ },
    { errno: undefined, want: /reconcile\.log/ },
  ])('the fix for $errno, by the code the heartbeat keeps', ({ errno, want }) => {
    expect(passFailureFix(errno, '/runs')).toMatch(want);
  });
});

describe('checkPasses', () => {
  test.each([
    {
      name: 'failing → a problem with the fix',
      heartbeat: {
        at: at('03:00').toISOString(),
        lastError: 'no space left on the disk (ENOSPC)',
        lastErrno: 'ENOSPC',
        failingSince: at('02:14').toISOString(),
      },
      want: {
        status: 'problem',
        detail: 'passes are failing since 02:14: no space left on the disk (ENOSPC)',
        fix: expect.stringMatching(/free space/),
      },
    },
    {
      name: 'went through → ok',
      heartbeat: { at: at('03:00').toISOString() },
      want: { status: 'ok', detail: 'the last reconcile pass went through 5m ago' },
    },
    {
      name: 'no heartbeat → ok',
      heartbeat: undefined,
      want: { status: 'ok', detail: 'no reconcile pass has run yet' },
    },
  ])('$name', ({ heartbeat, want }) => {
    expect(checkPasses(heartbeat, '/runs', at('03:05'), utc)).toMatchObject({ name: 'passes', ...want });
  });
});

test('a lazy clock says the same as an eager one', () => {
  const at = new Date('2026-11-22T02:14:09Z');
  const lazy = lazyLocalTime('UTC');
  expect([lazy.hm(at), lazy.hms(at), lazy.human(at)]).toEqual([utc.hm(at), utc.hms(at), utc.human(at)]);
});
