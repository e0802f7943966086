import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { runsHere } from '../helpers/ci.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// A runs root that cannot be used gets one clear line from every command: the path and the
// problem in words (a file, a missing parent, read-only), never errno text, and no exit 0 that
// hides it.

const COMMANDS: string[][] = [
  ['launch', '--duration', '1h', 'A task'],
  ['reconcile'],
  ['status'],
  ['logs', 'x'],
  ['stop', '--all'],
  ['pause', '--all'],
  ['resume', '--all'],
  ['schedule', 'install', '--backend', 'cron'],
  ['schedule', 'status'],
  ['finish', 'x'],
  ['archive', '--finished-before', '7d'],
  ['rm', 'x', '--yes'],
  ['digest'],
];

/** Each command fails with exactly one line on stderr that matches `want`, and no errno text. */
async function everyCommandSays(sb: Sandbox, root: string, want: RegExp): Promise<void> {
  for (const args of COMMANDS) {
    const r = await sb.run(args, { env: { OVERNIGHT_HOME: root, OVERNIGHT_CRONTAB_CMD: '/bin/false' } });
    const what = `overnight ${args.join(' ')}: ${r.stderr}`;
    expect(r.exitCode, what).toBe(1);
    expect(r.stderr.split('\n'), what).toHaveLength(1);
    expect(r.stderr, what).toMatch(want);
    expect(r.stderr, what).not.toMatch(/\bE[A-Z]{3,}\b|errno/);
  }
}

/** doctor's runs root line, and the whole output. */
async function doctor(sb: Sandbox, root: string): Promise<{ code: number; line: string; out: string }> {
  const r = await sb.run(['doctor'], { env: { OVERNIGHT_HOME: root } });
  return {
    code: r.exitCode,
    line: r.stdout.split('\n').find((l) => /^\w+\s+runs root /.test(l)) ?? '',
    out: r.stdout,
  };
}

/**
 * A tmpfs can be mounted here: as root with the right to mount (CI runs as root). Anything else
 * skips the read-only test, and says why (on CI it runs, and fails).
 */
const CAN_MOUNT: true | string = (() => {
  if (process.getuid?.() !== 0) return 'not root';
  const dir = mkdtempSync(join(tmpdir(), 'ovt-mount-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { encoding: 'utf8' });
    if (r.status !== 0) return `mount refused: ${r.stderr.trim() || r.error?.message}`;
    spawnSync('umount', [dir]);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

describe('a runs root that cannot be used', () => {
  if (!runsHere(CAN_MOUNT === true))
    it.skip(`on a read-only filesystem: skipped, a tmpfs cannot be mounted here (${CAN_MOUNT})`, () => {});

  it('under a file: one line from every command, naming the file; doctor says so too', async ({ sb }) => {
    const file = join(sb.dir, 'a-file');
    writeFileSync(file, 'not a directory\n');
    const root = join(file, 'runs');
    await everyCommandSays(
      sb,
      root,
      new RegExp(`^overnight: the runs root ${root} cannot be used: ${file} is a file, not a directory; `),
    );
    const d = await doctor(sb, root);
    expect(d.code).toBe(1);
    expect(d.line).toMatch(
      new RegExp(`^problem\\s+runs root\\s+${root} cannot be created: ${file} is a file`),
    );
  });

  it('itself a file', async ({ sb }) => {
    const root = join(sb.dir, 'runs-file');
    writeFileSync(root, '');
    await everyCommandSays(
      sb,
      root,
      new RegExp(`^overnight: the runs root ${root} is a file, not a directory`),
    );
  });

  it('with a missing parent (a disk not mounted): one line, nothing created', async ({ sb }) => {
    const root = join(sb.dir, 'usb', 'runs');
    await everyCommandSays(
      sb,
      root,
      new RegExp(
        `^overnight: the runs root ${root} does not exist, nor does its parent ${join(sb.dir, 'usb')} `,
      ),
    );
    expect(sb.read(join(sb.dir, 'usb'))).toBeNull();
    const d = await doctor(sb, root);
    expect(d.line).toMatch(/^problem\s+runs root\s+.* does not exist, nor does its parent/);
  });

  it('missing, its parent there: reading commands see no runs, launch creates it 0700', async ({ sb }) => {
    const root = join(sb.dir, 'fresh');
    const status = await sb.run(['status'], { env: { OVERNIGHT_HOME: root } });
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toBe(`No runs in ${root}. Start one with: overnight launch "<task>"`);
    expect((await sb.run(['reconcile'], { env: { OVERNIGHT_HOME: root } })).exitCode).toBe(0);
    expect(existsSync(root)).toBe(false);
    sb.setBehaviour({ work: 0, report: true });
    const launch = await sb.run(['launch', '--duration', '1h', 'Make my root'], {
      env: { OVERNIGHT_HOME: root },
    });
    expect(launch.exitCode, launch.stderr).toBe(0);
    expect(statSync(root).mode & 0o777).toBe(0o700);
  });

  it.runIf(runsHere(CAN_MOUNT === true))(
    'on a read-only filesystem (a tmpfs remounted ro; runs as root): status still shows the runs, every writer says read-only, doctor never says chmod',
    async ({ sb }) => {
      const mnt = join(sb.dir, 'ro');
      mkdirSync(mnt);
      const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', mnt], {
        encoding: 'utf8',
      });
      expect(mount.status, `mount needs CAP_SYS_ADMIN: ${mount.stderr}`).toBe(0);
      try {
        const root = join(mnt, 'runs');
        const env = { OVERNIGHT_HOME: root };
        // One run left waiting: its agent crashed while a pass held the lock.
        sb.setBehaviour({ hang: true });
        const run = await sb.run(['launch', '--json', '--duration', '1h', 'Left waiting'], { env });
        expect(run.exitCode, run.stderr).toBe(0);
        const id = (JSON.parse(run.stdout) as { id: string }).id;
        const pid = Number(
          (await waitFor(() => sb.read(join(root, '.overnight', id, 'agent-1.pid')))).split(' ')[0],
        );
        mkdirSync(join(root, '.reconcile.lock'));
        process.kill(pid, 'SIGKILL');
        await waitFor(() => sb.read(join(root, '.overnight', id, 'agent-1.exit')), { what: 'exit record' });
        await waitFor(async () => !(await sb.hasSession(id)), { what: 'wrapper gone' });
        await waitFor(() => spawnSync('mount', ['-o', 'remount,ro', mnt]).status === 0, {
          what: 'remount read-only (no file open for writing)',
        });

        const status = await sb.run(['status'], { env });
        expect(status.exitCode, status.stderr).toBe(0);
        expect(status.stdout).toContain(id);
        expect(status.stdout).toContain(
          `warning: no pass can act on these runs: the runs root ${root} is on a read-only filesystem; `,
        );
        expect((await sb.run(['logs', id], { env })).exitCode).toBe(0);

        const readOnly = new RegExp(
          `^overnight: the runs root ${root} is on a read-only filesystem; remount`,
        );
        for (const args of [
          ['launch', 'Another'],
          ['reconcile'],
          ['stop', id],
          ['pause', '--all'],
          ['finish', id],
          ['archive', id],
          ['rm', id, '--yes'],
        ]) {
          const r = await sb.run(args, { env });
          expect(r.exitCode, args.join(' ')).toBe(1);
          expect(r.stderr, args.join(' ')).toMatch(readOnly);
          expect(r.stderr.split('\n')).toHaveLength(1);
        }
        const d = await doctor(sb, root);
        expect(d.code).toBe(1);
        expect(d.line).toMatch(
          /^problem\s+runs root\s+.* is on a read-only filesystem \(.*\): no run can be written/,
        );
        expect(d.out).not.toContain('chmod');
      } finally {
        spawnSync('umount', ['-l', mnt]);
      }
    },
  );
});
