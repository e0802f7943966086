import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { BIN, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// A pass's log on a full disk (the wrapper's `>> reconcile.log`): writing a line fails. The pass
// must go on and let go of the lock; dying as it takes the lock would leave it with no owner
// record (that cannot be written either), and every pass would wait for it to go stale.

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a pass whose log cannot be written', () => {
  it('still serves the runs and lets go of the lock (every write to stderr fails)', async ({ sb }) => {
    sb.setBehaviour({ work: 120 });
    const { id } = await sb.launch('A run whose agent dies', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    await sb.quiesce();
    // The agent dies while the lock is held, so that its wrapper's pass leaves it to ours.
    const lock = join(sb.runs, '.reconcile.lock');
    mkdirSync(lock);
    process.kill(pid, 'SIGKILL');
    // The wrapper ends once it has started its pass, which gives up on the lock in 5 s.
    const wrapper = Number((sb.read(sb.state(id, 'wrapper-1.pid')) ?? '').split(' ')[0]);
    await waitFor(() => !isAlive(wrapper), { what: 'the wrapper gone' });
    await sb.quiesce(30_000);
    rmSync(lock, { recursive: true });
    // The pass warns before it takes the lock: the records' layout mark cannot be written.
    const mark = join(sb.runs, '.overnight', '.layout');
    rmSync(mark, { force: true });
    mkdirSync(mark);
    // Standard error open for reading only: every write to it fails, as on a full disk.
    const log = join(sb.dir, 'pass.log');
    writeFileSync(log, '');
    const pass = spawnSync('sh', ['-c', '"$0" "$1" reconcile 2< "$2"', process.execPath, BIN, log], {
      env: sb.env,
      cwd: sb.dir,
    });
    expect(String(pass.stdout)).toMatch(/resumed/);
    expect(pass.status).toBe(0);
    expect(existsSync(lock)).toBe(false);
    await sb.agentPid(id, 2);
    rmSync(mark, { recursive: true });
  });
});
