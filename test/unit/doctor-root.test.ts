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
  // Every schedule that is not ok says how to fix it.
  const FIX = expect.stringMatching(/overnight schedule (install|status)/);
  test.each<{ name: string; facts: Partial<ScheduleFacts>; want: Partial<CheckResult> }>([
    {
      name: 'fresh heartbeat',
      facts: {},
      want: {
        status: 'ok',
        detail: expect.stringMatching(/cron every 5m; the last scheduled pass ran 2m ago/),
      },
    },
    {
      name: 'heartbeat exactly two intervals old',
      facts: { heartbeat: { at: '2026-11-22T02:50:00Z', scheduledAt: '2026-11-22T02:50:00Z' } },
      want: { status: 'ok', detail: expect.stringMatching(/10m ago/) },
    },
    {
      name: 'stale heartbeat',
      facts: { heartbeat: { at: '2026-11-22T01:00:00Z', scheduledAt: '2026-11-22T01:00:00Z' } },
      want: {
        status: 'problem',
        detail: expect.stringMatching(
          /cron every 5m, but the last scheduled pass ran 2h ago \(more than two intervals\)/,
        ),
        fix: FIX,
      },
    },
    {
      name: 'installed long ago, no pass',
      facts: { heartbeat: undefined },
      want: {
        status: 'problem',
        detail: expect.stringMatching(/installed 5h ago, but no scheduled pass has run/),
        fix: FIX,
      },
    },
    {
      name: 'just installed, no pass yet',
      facts: { heartbeat: undefined, marker: { ...marker, installedAt: '2026-11-22T02:59:00Z' } },
      want: { status: 'ok', detail: expect.stringMatching(/first pass is still to come/) },
    },
    {
      name: 'no schedule: what goes on without one (the end time among it), and what does not',
      facts: { marker: undefined, heartbeat: undefined },
      want: {
        status: 'warning',
        detail:
          "no schedule installed: an agent's exit still starts a pass (a crash is resumed within " +
          "seconds) and each run's timers end its waits and its night on time, but nothing resumes a " +
          'run after a reboot, and a hang or a killed wrapper is found only at the end time',
        fix: FIX,
      },
    },
    {
      name: 'no schedule, and cron here: the install is the fix',
      facts: { marker: undefined, here: { darwin: false, crontab: true, systemdUser: false } },
      want: { status: 'warning', detail: expect.stringMatching(/^no schedule installed: /), fix: FIX },
    },
    {
      name: 'no schedule, and no scheduler here: the fix says how to get one',
      facts: { marker: undefined, here: { darwin: false, crontab: false, systemdUser: false } },
      want: {
        status: 'warning',
        detail: expect.stringMatching(
          /^no schedule installed, and no scheduler here \(no crontab, no systemd user manager\): /,
        ),
        fix: expect.stringMatching(
          /^install cron \(apt-get install cron .*\), then run `overnight schedule install`$/,
        ),
      },
    },
    {
      name: 'passes by hand or by exits prove nothing about the schedule',
      facts: { heartbeat: { at: '2026-11-22T02:59:00Z' } },
      want: {
        status: 'problem',
        detail: expect.stringMatching(/installed 5h ago, but no scheduled pass has run/),
        fix: FIX,
      },
    },
    {
      name: 'unreadable marker',
      facts: { marker: undefined, markerError: 'Unexpected token' },
      want: {
        status: 'problem',
        detail: expect.stringMatching(/cannot be read \(Unexpected token\)/),
        fix: FIX,
      },
    },
    {
      name: 'not a marker',
      facts: { marker: { backend: 'cron' } },
      want: { status: 'problem', detail: expect.stringMatching(/is not a schedule marker/), fix: FIX },
    },
    {
      name: 'the entry the marker names is there',
      facts: { entries: [{ backend: 'cron', where: 'crontab' }] },
      want: { status: 'ok' },
    },
    {
      name: 'the marker without its entry (removed by hand)',
      facts: { entries: [] },
      want: {
        status: 'problem',
        detail:
          '/r/.schedule.json says cron, but no cron entry was found; run `overnight schedule install` again',
        fix: FIX,
      },
    },
    {
      name: 'an entry without a marker (an install that did not finish)',
      facts: {
        marker: undefined,
        heartbeat: undefined,
        entries: [{ backend: 'systemd', where: '/u/x.timer' }],
      },
      want: {
        status: 'warning',
        detail:
          'no schedule installed: a systemd entry (/u/x.timer) is left over from an install that did not ' +
          'finish; run `overnight schedule install` again, or `overnight schedule uninstall`',
        fix: FIX,
      },
    },
  ])('$name → $want.status', ({ facts: over, want }) => {
    expect(checkSchedule(facts(over), NOW)).toMatchObject(want);
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
    mount: { mountPoint: '/', type: 'ext4', readOnly: false },
    freeBytes: 50 * GB,
    writeError: null,
    fileInTheWay: null,
    ...over,
  });
  const byName = (rs: CheckResult[]) => Object.fromEntries(rs.map((r) => [r.name, r]));
  type Case = { name: string; facts: Partial<RunsRootFacts>; want: { status: CheckStatus; detail: RegExp } };
  /** Runs the check named `check`: its status and detail as wanted, and a fix unless it is ok. */
  const check =
    (name: string) =>
    ({ facts: over, want }: Case) => {
      const r = byName(checkRunsRoot(facts(over)))[name] as CheckResult;
      expect(r.status).toBe(want.status);
      expect(r.detail).toMatch(want.detail);
      expect(r.fix === undefined).toBe(want.status === 'ok');
    };

  test.each<Case>([
    { name: 'all well', facts: {}, want: { status: 'ok', detail: /\(0700\)/ } },
    {
      name: 'missing',
      facts: { exists: false, isDirectory: false, mode: null, checkedPath: '/home/me' },
      want: { status: 'warning', detail: /does not exist yet/ },
    },
    {
      name: 'a file',
      facts: { isDirectory: false },
      want: { status: 'problem', detail: /is not a directory/ },
    },
    { name: '0755', facts: { mode: 0o755 }, want: { status: 'warning', detail: /is 0755, not 0700/ } },
    { name: '0777', facts: { mode: 0o777 }, want: { status: 'problem', detail: /others can write/ } },
    {
      name: '0500',
      facts: { mode: 0o500 },
      want: { status: 'problem', detail: /cannot read, write and enter/ },
    },
    { name: 'someone else', facts: { ownerUid: 0 }, want: { status: 'problem', detail: /belongs to uid 0/ } },
    {
      name: 'missing, and its parent too',
      facts: { exists: false, isDirectory: false, mode: null, checkedPath: '/' },
      want: { status: 'problem', detail: /does not exist, nor does its parent \/home\/me$/ },
    },
    {
      name: 'missing, a file in the way',
      facts: {
        exists: false,
        isDirectory: false,
        mode: null,
        checkedPath: '/home/me',
        fileInTheWay: '/home/me',
      },
      want: { status: 'problem', detail: /cannot be created: \/home\/me is a file/ },
    },
    {
      name: 'on a read-only mount, 0755',
      facts: { mode: 0o755, mount: { mountPoint: '/home', type: 'ext4', readOnly: true } },
      want: { status: 'problem', detail: /is on a read-only filesystem \(\/home\): no run can be written/ },
    },
    {
      name: 'a write refused as read-only',
      facts: { writeError: 'EROFS' },
      want: { status: 'problem', detail: /read-only filesystem/ },
    },
    {
      name: 'missing, its parent read-only',
      facts: { exists: false, isDirectory: false, mode: null, checkedPath: '/home/me', writeError: 'EROFS' },
      want: { status: 'problem', detail: /^\/home\/me \(where .* would be created\) is on a read-only/ },
    },
    {
      name: 'a write refused',
      facts: { writeError: 'EACCES' },
      want: { status: 'problem', detail: /cannot be written by you \(permission denied\)/ },
    },
    {
      name: 'a full disk',
      facts: { writeError: 'ENOSPC' },
      want: { status: 'problem', detail: /no space left on the disk \(ENOSPC\)/ },
    },
  ])('the directory, $name → $want.status', check('runs root'));

  test('a read-only root is never told to chmod', () => {
    const [dir] = checkRunsRoot(
      facts({ mode: 0o555, mount: { mountPoint: '/mnt/ro', type: 'tmpfs', readOnly: true } }),
    );
    expect(dir?.fix).toMatch(/^remount it read-write, or set OVERNIGHT_HOME/);
    expect(dir?.fix).not.toContain('chmod');
  });

  test.each<Case>([
    { name: 'ext4', facts: {}, want: { status: 'ok', detail: /on ext4 \(\/\), a local filesystem/ } },
    {
      name: 'apfs',
      facts: { mount: { mountPoint: '/System/Volumes/Data', type: 'apfs', readOnly: false } },
      want: { status: 'ok', detail: /apfs/ },
    },
    {
      name: 'nfs',
      facts: { mount: { mountPoint: '/home', type: 'nfs4', readOnly: false } },
      want: { status: 'problem', detail: /nfs4 \(\/home\), a network filesystem/ },
    },
    {
      name: 'cifs',
      facts: { mount: { mountPoint: '/mnt/share', type: 'cifs', readOnly: false } },
      want: { status: 'problem', detail: /network/ },
    },
    {
      name: 'smbfs',
      facts: { mount: { mountPoint: '/Volumes/share', type: 'smbfs', readOnly: false } },
      want: { status: 'problem', detail: /network/ },
    },
    {
      name: 'sshfs',
      facts: { mount: { mountPoint: '/mnt/remote', type: 'fuse.sshfs', readOnly: false } },
      want: { status: 'problem', detail: /network/ },
    },
    {
      name: 'tmpfs',
      facts: { mount: { mountPoint: '/tmp', type: 'tmpfs', readOnly: false } },
      want: { status: 'warning', detail: /lost at a reboot/ },
    },
    {
      name: 'other fuse',
      facts: { mount: { mountPoint: '/x', type: 'fuse.gvfsd-fuse', readOnly: false } },
      want: { status: 'warning', detail: /may not lock/ },
    },
    { name: 'unknown', facts: { mount: null }, want: { status: 'warning', detail: /unknown/ } },
  ])('the filesystem, $name → $want.status', check('filesystem'));

  test.each<Case>([
    { name: 'plenty of space', facts: {}, want: { status: 'ok', detail: /50\.0 GB free on \// } },
    {
      name: 'under 1 GB',
      facts: { freeBytes: 700 * 1024 ** 2 },
      want: { status: 'warning', detail: /only 700 MB free .*under 1 GB/ },
    },
    {
      name: 'under 100 MB',
      facts: { freeBytes: 20 * 1024 ** 2 },
      want: { status: 'problem', detail: /only 20 MB free/ },
    },
    {
      name: 'unknown space',
      facts: { freeBytes: null },
      want: { status: 'warning', detail: /could not read/ },
    },
  ])('free space, $name → $want.status', check('free space'));

  test('mount tables and the longest prefix', () => {
    const linux = parseProcMounts(
      '/dev/vda / ext4 rw 0 0\nserver:/home /home nfs4 rw 0 0\ntmpfs /home/me/my\\040runs tmpfs ro,nosuid 0 0\n',
    );
    expect(mountFor('/home/me/overnight-runs', linux)).toEqual({
      mountPoint: '/home',
      type: 'nfs4',
      readOnly: false,
    });
    expect(mountFor('/home/me/my runs/x', linux)).toEqual({
      mountPoint: '/home/me/my runs',
      type: 'tmpfs',
      readOnly: true,
    });
    expect(mountFor('/homeless', linux)).toEqual({ mountPoint: '/', type: 'ext4', readOnly: false });
    const mac = parseMountOutput(
      '/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)\n//me@nas/share on /Volumes/share (smbfs, nodev, nosuid, mounted by me)\n',
    );
    expect(mountFor('/Volumes/share/runs', mac)).toEqual({
      mountPoint: '/Volumes/share',
      type: 'smbfs',
      readOnly: false,
    });
    expect(mountFor('/', mac)).toEqual({ mountPoint: '/', type: 'apfs', readOnly: true });
    expect(filesystemKind('overlay')).toBe('local');
  });
});
