import { describe, expect, test } from 'vitest';

import { DISK_FULL_BYTES, diskFullWarning, type DiskSpace } from '../../src/core/status/disk.js';

// status looks at the runs root's free space itself: a pass on a full disk cannot say so.

describe('diskFullWarning', () => {
  const ROOT = '/home/me/overnight-runs';
  test.each<{ name: string; space: DiskSpace | null; want: RegExp | null }>([
    { name: 'unknown (statfs failed): nothing said', space: null, want: null },
    { name: 'plenty of room', space: { bytes: 40 * 1024 ** 3, inodes: 100_000 }, want: null },
    { name: 'exactly the threshold: still room', space: { bytes: DISK_FULL_BYTES, inodes: 10 }, want: null },
    {
      name: '100 % full',
      space: { bytes: 0, inodes: 5000 },
      want: /^warning: no space left on the disk that holds \/home\/me\/overnight-runs \(0 KB free\): passes cannot record anything/,
    },
    { name: 'under 1 MB', space: { bytes: 300 * 1024, inodes: 5000 }, want: /\(300 KB free\)/ },
    {
      name: 'bytes left but no inodes',
      space: { bytes: 10 * 1024 ** 3, inodes: 0 },
      want: /\(no free inodes\)/,
    },
    { name: 'a filesystem without inode counts', space: { bytes: 10 * 1024 ** 3, inodes: null }, want: null },
  ])('$name', ({ space, want }) => {
    const got = diskFullWarning(space, ROOT);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatch(want);
  });

  test('it says the fix', () => {
    expect(diskFullWarning({ bytes: 0, inodes: 1 }, ROOT)).toMatch(
      /fix: free space on that disk; runs resume on the next pass, nothing written is lost\.$/,
    );
  });
});
