import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

import { timerArgs } from '../../src/adapters/wake-timer.js';

// The timer's shell on its own, with a recorder in place of the pass: when it fires.
describe('the wake timer', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('never fires before its time, even when its sleeps run late', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ovt-timer-'));
    dirs.push(dir);
    const recorder = join(dir, 'pass.sh');
    writeFileSync(recorder, `date +%s%N > "${dir}/fired"; echo "$@" >> "${dir}/fired"\n`);
    // A loaded machine: each \`sleep 1\` takes 1.1 s.
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'sleep'), '#!/bin/sh\nexec /bin/sleep 1.1\n', { mode: 0o755 });
    // Armed late in a second: seconds counted from the shell's start run out 0.2 s early.
    while (Date.now() % 1000 < 750 || Date.now() % 1000 > 850) await new Promise((r) => setTimeout(r, 5));
    const now = new Date();
    const until = new Date(now.getTime() + 3_500);
    await execa('/bin/sh', timerArgs(until, now, { node: '/bin/sh', cli: recorder }, dir), {
      timeout: 15_000,
      env: { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` },
    });
    const [ns, argv] = readFileSync(join(dir, 'fired'), 'utf8').trim().split('\n');
    expect(Number(BigInt(ns as string) / 1_000_000n)).toBeGreaterThanOrEqual(until.getTime());
    expect(argv).toBe(`reconcile --retry-lock 5000 --for-run ${basename(dir)}`);
  });

  it('ends without a pass once its run has ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ovt-timer-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'DONE'), '');
    const until = new Date(Date.now() + 60_000);
    const timer = await execa(
      '/bin/sh',
      timerArgs(until, new Date(), { node: '/bin/false', cli: 'x' }, dir),
      {
        timeout: 10_000,
      },
    );
    expect(timer.exitCode).toBe(0);
  });
});
