import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { writeFileAtomic } from '../../src/adapters/files.js';
import { tryLock } from '../../src/adapters/lock.js';
import { runsHere } from '../helpers/ci.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// A full disk: the runs root on a small tmpfs (mounting needs root; CI runs as root).

const root = process.getuid?.() === 0;

/** Writes a file until the disk refuses another byte; returns its path. */
function fillDisk(dir: string): string {
  const filler = join(dir, 'filler');
  const fd = openSync(filler, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (const size of [block.length, 4096, 1]) {
      try {
        for (;;) writeSync(fd, block, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

/** Every file under `dir` whose name says it is a temp file. */
function tempFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
    /\.tmp(\.\d+)?$|\.tmp\./.test(f),
  );
}

function withTmpfs(sb: Sandbox): () => void {
  mkdirSync(sb.runs, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', sb.runs]);
  // Lazy: agents killed a moment later may still hold files there.
  return () => execFileSync('umount', ['-l', sb.runs]);
}

describe.runIf(runsHere(root))('a full disk (runs root on a 4 MB tmpfs; needs root to mount it)', () => {
  it('passes fail and say why; no temp file is left; once space is back the run resumes and nothing is lost', async ({
    sb,
  }) => {
    const unmount = withTmpfs(sb);
    try {
      sb.setBehaviour([{ torn: '{"type":"assistant","message":{"content":[{"type":"te' }, { work: 60 }]);
      const { id } = await sb.launch('Fill the disk', ['--duration', '1h']);
      const pid = await sb.agentPid(id);
      writeFileSync(sb.ws(id, 'findings', 'canary.md'), 'the canary\n');
      // A heartbeat exists before the disk fills, as it does on any machine with a schedule.
      expect((await sb.run(['reconcile'])).exitCode).toBe(0);
      await waitFor(() => (sb.read(sb.state(id, 'output.log')) ?? '').endsWith('"type":"te'), {
        what: 'the torn line',
      });
      const before = readFileSync(sb.state(id, 'output.log'), 'utf8');

      const filler = fillDisk(sb.runs);
      expect(() => writeFileAtomic(join(sb.runs, 'probe.json'), 'x'.repeat(8192))).toThrow(/ENOSPC/);
      // The lock's holder is still recorded (in place): one killed now is known gone at once.
      const lock = join(sb.runs, '.reconcile.lock');
      const release = await tryLock(lock, () => {});
      expect(readFileSync(`${lock}.owner`, 'utf8')).toContain(` ${process.pid} `);
      await release?.();
      process.kill(pid, 'SIGKILL');
      await sb.quiesce(30_000);
      const pass = await sb.run(['reconcile']);
      expect(pass.exitCode).toBe(1);
      // The command's one line says it in the words of every command's errors.
      expect(pass.stderr).toMatch(/no space left on the disk/);

      const status = await sb.run(['status']);
      expect(status.stdout).toMatch(
        /passes are failing since \d\d:\d\d: no space left on the disk \(ENOSPC\)/,
      );
      // status looks at the disk itself, heartbeat or not.
      expect(status.stdout).toMatch(/no space left on the disk that holds .*: passes cannot record anything/);
      expect(status.stdout).toMatch(/fix: free space on that disk/);
      expect((await sb.run(['status', '--check'])).exitCode).not.toBe(0);
      const doctor = await sb.run(['doctor']);
      expect(doctor.stdout).toMatch(
        /passes are failing since \d\d:\d\d: no space left on the disk \(ENOSPC\)/,
      );
      expect(doctor.stdout).toMatch(/free space on the disk/);
      expect(tempFiles(sb.runs)).toEqual([]);

      rmSync(filler);
      const again = await sb.run(['reconcile']);
      expect(again.exitCode, again.stderr).toBe(0);
      await sb.agentPid(id, 2);
      const after = readFileSync(sb.state(id, 'output.log'), 'utf8');
      expect(after.startsWith(before)).toBe(true);
      // The cut-off line keeps its place; the next session's marker starts a line of its own.
      expect(after.slice(before.length)).toMatch(/^\n\{"type":"overnight_session","session":2,/);
      expect((await sb.run(['logs', id, '--all'])).stdout).toMatch(/── session 2 · .* · resumed\b/);
      const [row] = await sb.status<{ sessions: number }>();
      expect(row?.sessions).toBe(2);
      expect((await sb.run(['status'])).stdout).not.toMatch(/passes are failing|no space left/);
      expect(sb.read(sb.ws(id, 'findings', 'canary.md'))).toBe('the canary\n');
      expect(tempFiles(sb.runs)).toEqual([]);
    } finally {
      await sb.tmux(['kill-server']);
      unmount();
    }
  });

  it('a disk that filled before any pass could record it: status says so, and --check fails', async ({
    sb,
  }) => {
    const unmount = withTmpfs(sb);
    try {
      sb.setBehaviour({ work: 60 });
      const { id } = await sb.launch('Fill the disk early', ['--duration', '1h']);
      await sb.agentPid(id);
      const fine = await sb.run(['status', '--check']);
      expect(fine.stdout).not.toMatch(/no space left/);
      fillDisk(sb.runs);
      const status = await sb.run(['status', '--check']);
      expect(status.exitCode).not.toBe(0);
      expect(status.stdout).toMatch(
        /warning: no space left on the disk that holds .* \(\d+ KB free\): passes cannot record anything/,
      );
    } finally {
      await sb.tmux(['kill-server']);
      unmount();
    }
  });
});
