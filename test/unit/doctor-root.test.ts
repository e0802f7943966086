import { describe, expect, test } from 'vitest';

import type { CheckResult, CheckStatus } from '../../src/core/doctor/checks.js';
import {
  checkRunsRoot,
  filesystemKind,
  mountFor,
  parseMountOutput,
  parseProcMounts,
  type RunsRootFacts,
} from '../../src/core/doctor/root.js';
import { checkSchedule, type ScheduleFacts } from '../../src/core/doctor/schedule.js';
import { parseScheduleMarker } from '../../src/core/schedule/marker.js';

// doctor's checks of the runs root: its schedule, and the directory and file system it lives on.

describe('schedule', () => {
  const NOW = new Date('2026-11-22T03:00:00Z');
  const marker = { backend: 'cron', everySeconds: 300, installedAt: '2026-11-21T22:00:00Z' };
  const facts = (over: Partial<ScheduleFacts> = {}): ScheduleFacts => ({
    markerPath: '/r/.schedule.json',
    marker,
    heartbeat: { at: '2026-11-22T02:58:00Z', scheduledAt: '2026-11-22T02:58:00Z', runs: 1 },
    ...over,
  });
  test.each<[string, Partial<ScheduleFacts>, CheckStatus, RegExp]>([
    ['fresh heartbeat', {}, 'ok', /cron every 5m; the last scheduled pass ran 2m ago/],
    [
      'heartbeat exactly two intervals old',
      { heartbeat: { at: '2026-11-22T02:50:00Z', scheduledAt: '2026-11-22T02:50:00Z' } },
      'ok',
      /10m ago/,
    ],
    [
      'stale heartbeat',
      { heartbeat: { at: '2026-11-22T01:00:00Z', scheduledAt: '2026-11-22T01:00:00Z' } },
      'problem',
      /cron every 5m, but the last scheduled pass ran 2h ago \(more than two intervals\)/,
    ],
    [
      'installed long ago, no pass',
      { heartbeat: undefined },
      'problem',
      /installed 5h ago, but no scheduled pass has run/,
    ],
    [
      'just installed, no pass yet',
      { heartbeat: undefined, marker: { ...marker, installedAt: '2026-11-22T02:59:00Z' } },
      'ok',
      /first pass is still to come/,
    ],
    [
      'no schedule',
      { marker: undefined, heartbeat: undefined },
      'warning',
      /^no schedule installed: only an agent's exit starts a pass/,
    ],
    [
      'passes by hand or by exits prove nothing about the schedule',
      { heartbeat: { at: '2026-11-22T02:59:00Z' } },
      'problem',
      /installed 5h ago, but no scheduled pass has run/,
    ],
    [
      'unreadable marker',
      { marker: undefined, markerError: 'Unexpected token' },
      'problem',
      /cannot be read \(Unexpected token\)/,
    ],
    ['not a marker', { marker: { backend: 'cron' } }, 'problem', /is not a schedule marker/],
  ])('%s', (_name, over, status, detail) => {
    const r = checkSchedule(facts(over), NOW);
    expect(r.status).toBe(status);
    expect(r.detail).toMatch(detail);
    if (status !== 'ok') expect(r.fix).toMatch(/overnight schedule (install|status)/);
  });

  test('the stale fix names the backend', () => {
    const r = checkSchedule(
      facts({
        marker: { ...marker, backend: 'systemd' },
        heartbeat: { at: '2026-11-21T01:00:00Z', scheduledAt: '2026-11-21T01:00:00Z' },
      }),
      NOW,
    );
    expect(r.fix).toMatch(/enable-linger/);
  });

  test('parseScheduleMarker keeps path, env and node', () => {
    expect(
      parseScheduleMarker({
        ...marker,
        path: '/a:/b',
        env: { OVERNIGHT_HOME: '/r', X: 1 },
        node: '/usr/bin/node',
      }),
    ).toEqual({
      backend: 'cron',
      everySeconds: 300,
      installedAt: new Date('2026-11-21T22:00:00Z'),
      path: '/a:/b',
      env: { OVERNIGHT_HOME: '/r' },
      node: '/usr/bin/node',
    });
    expect(parseScheduleMarker(null)).toBeNull();
    expect(parseScheduleMarker({ backend: 'cron', everySeconds: 0 })).toBeNull();
  });
});

describe('runs root', () => {
  const GB = 1024 ** 3;
  const facts = (over: Partial<RunsRootFacts> = {}): RunsRootFacts => ({
    path: '/home/me/overnight-runs',
    exists: true,
    isDirectory: true,
    mode: 0o700,
    ownerUid: 1000,
    uid: 1000,
    checkedPath: '/home/me/overnight-runs',
    mount: { mountPoint: '/', type: 'ext4' },
    freeBytes: 50 * GB,
    ...over,
  });
  const byName = (rs: CheckResult[]) => Object.fromEntries(rs.map((r) => [r.name, r]));
  test.each<[string, Partial<RunsRootFacts>, string, CheckStatus, RegExp]>([
    ['all well', {}, 'runs root', 'ok', /\(0700\)/],
    [
      'missing',
      { exists: false, isDirectory: false, mode: null, checkedPath: '/home/me' },
      'runs root',
      'warning',
      /does not exist yet/,
    ],
    ['a file', { isDirectory: false }, 'runs root', 'problem', /is not a directory/],
    ['0755', { mode: 0o755 }, 'runs root', 'warning', /is 0755, not 0700/],
    ['0777', { mode: 0o777 }, 'runs root', 'problem', /others can write/],
    ['0500', { mode: 0o500 }, 'runs root', 'problem', /cannot read, write and enter/],
    ['someone else', { ownerUid: 0 }, 'runs root', 'problem', /belongs to uid 0/],
    ['ext4', {}, 'filesystem', 'ok', /on ext4 \(\/\), a local filesystem/],
    ['apfs', { mount: { mountPoint: '/System/Volumes/Data', type: 'apfs' } }, 'filesystem', 'ok', /apfs/],
    [
      'nfs',
      { mount: { mountPoint: '/home', type: 'nfs4' } },
      'filesystem',
      'problem',
      /nfs4 \(\/home\), a network filesystem/,
    ],
    ['cifs', { mount: { mountPoint: '/mnt/share', type: 'cifs' } }, 'filesystem', 'problem', /network/],
    ['smbfs', { mount: { mountPoint: '/Volumes/share', type: 'smbfs' } }, 'filesystem', 'problem', /network/],
    [
      'sshfs',
      { mount: { mountPoint: '/mnt/remote', type: 'fuse.sshfs' } },
      'filesystem',
      'problem',
      /network/,
    ],
    ['tmpfs', { mount: { mountPoint: '/tmp', type: 'tmpfs' } }, 'filesystem', 'warning', /lost at a reboot/],
    [
      'other fuse',
      { mount: { mountPoint: '/x', type: 'fuse.gvfsd-fuse' } },
      'filesystem',
      'warning',
      /may not lock/,
    ],
    ['unknown', { mount: null }, 'filesystem', 'warning', /unknown/],
    ['plenty of space', {}, 'free space', 'ok', /50\.0 GB free on \//],
    ['under 1 GB', { freeBytes: 700 * 1024 ** 2 }, 'free space', 'warning', /only 700 MB free .*under 1 GB/],
    ['under 100 MB', { freeBytes: 20 * 1024 ** 2 }, 'free space', 'problem', /only 20 MB free/],
    ['unknown space', { freeBytes: null }, 'free space', 'warning', /could not read/],
  ])('%s', (_name, over, name, status, detail) => {
    const r = byName(checkRunsRoot(facts(over)))[name] as CheckResult;
    expect(r.status).toBe(status);
    expect(r.detail).toMatch(detail);
    expect(r.fix === undefined).toBe(status === 'ok');
  });

  test('mount tables and the longest prefix', () => {
    const linux = parseProcMounts(
      '/dev/vda / ext4 rw 0 0\nserver:/home /home nfs4 rw 0 0\ntmpfs /home/me/my\\040runs tmpfs rw 0 0\n',
    );
    expect(mountFor('/home/me/overnight-runs', linux)).toEqual({ mountPoint: '/home', type: 'nfs4' });
    expect(mountFor('/home/me/my runs/x', linux)).toEqual({ mountPoint: '/home/me/my runs', type: 'tmpfs' });
    expect(mountFor('/homeless', linux)).toEqual({ mountPoint: '/', type: 'ext4' });
    const mac = parseMountOutput(
      '/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)\n//me@nas/share on /Volumes/share (smbfs, nodev, nosuid, mounted by me)\n',
    );
    expect(mountFor('/Volumes/share/runs', mac)).toEqual({ mountPoint: '/Volumes/share', type: 'smbfs' });
    expect(filesystemKind('overlay')).toBe('local');
  });
});
