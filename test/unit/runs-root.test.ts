import { describe, expect, test } from 'vitest';

import { describeFsError, describeRootProblem, type RootProblem } from '../../src/core/run/runs-root.js';

// A bad runs root in one line: the path, the problem in words, the fix; never errno text.

const ROOT = '/home/me/overnight-runs';

describe('describeRootProblem', () => {
  test.each<{ name: string; problem: RootProblem; want: RegExp }>([
    {
      name: 'the root is a file',
      problem: { kind: 'file', root: ROOT, path: ROOT },
      want: /^the runs root \/home\/me\/overnight-runs is a file, not a directory; move it away, or set OVERNIGHT_HOME/,
    },
    {
      name: 'a file above it',
      problem: { kind: 'file', root: `${ROOT}/x`, path: ROOT },
      want: /cannot be used: \/home\/me\/overnight-runs is a file, not a directory/,
    },
    {
      name: 'a missing parent',
      problem: { kind: 'missing-parent', root: '/mnt/usb/runs', parent: '/mnt/usb' },
      want: /does not exist, nor does its parent \/mnt\/usb \(a typo, or a disk not mounted\?\); create \/mnt\/usb/,
    },
    {
      name: 'read-only',
      problem: { kind: 'read-only', root: ROOT },
      want: /is on a read-only filesystem; remount it read-write, or set OVERNIGHT_HOME/,
    },
    {
      name: 'not writable',
      problem: { kind: 'not-writable', root: ROOT, path: ROOT },
      want: /cannot be written: \/home\/me\/overnight-runs is not writable by you/,
    },
    {
      name: 'full',
      problem: { kind: 'full', root: ROOT },
      want: /full disk \(no space left\); free some space/,
    },
    {
      name: 'anything else',
      problem: { kind: 'other', root: ROOT, path: ROOT, code: 'EIO' },
      want: /: input\/output error \(a failing disk\?\)$/,
    },
  ])('$name → $want', ({ problem, want }) => {
    const line = describeRootProblem(problem);
    expect(line).toMatch(want);
    expect(line).not.toMatch(/\bE[A-Z]{2,}\b|\n/);
  });
});

describe('describeFsError', () => {
  test.each<{ code: string; path?: string; want: string }>([
    { code: 'EROFS', path: '/r/.reconcile.lock', want: '/r/.reconcile.lock: read-only filesystem' },
    { code: 'ENOTDIR', path: '/f/runs', want: '/f/runs: a part of the path is a file, not a directory' },
    { code: 'EEXIST', path: '/r', want: '/r: already exists' },
    { code: 'ENOSPC', want: 'no space left on the disk' },
    { code: 'EWHATEVER', path: '/x', want: '/x: failed (EWHATEVER)' },
  ])('$code → $want', ({ code, path, want }) => {
    expect(describeFsError({ code, path })).toBe(want);
  });
});
