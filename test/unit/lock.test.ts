import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { tryLock } from '../../src/adapters/lock.js';

let dir: string;
let lock: string;
const lost = () => {};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ovl-'));
  lock = join(dir, '.reconcile.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that was a process and has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(r.stdout);
}

/** This machine as the lock records it (host, and pid namespace where there is one). */
async function machine(): Promise<string> {
  const release = await tryLock(lock, lost);
  const host = readFileSync(`${lock}.owner`, 'utf8').split(' ')[1] as string;
  await release?.();
  return host;
}

/** A lock as a pass killed with SIGKILL leaves it: fresh (not stale), its holder recorded. */
function leftBy(pid: number, host: string, ino = statOf()) {
  writeFileSync(`${lock}.owner`, `${ino} ${host} ${pid} 12345\n`);
}
const statOf = () => (existsSync(lock) ? statSync(lock).ino : (mkdirSync(lock), statSync(lock).ino));

describe('the pass lock', () => {
  it('is held by one at a time, and its holder is recorded until it lets go', async () => {
    const release = await tryLock(lock, lost);
    expect(release).not.toBeNull();
    expect(readFileSync(`${lock}.owner`, 'utf8')).toContain(` ${process.pid} `);
    expect(await tryLock(lock, lost)).toBeNull();
    await release?.();
    expect(existsSync(`${lock}.owner`)).toBe(false);
    const again = await tryLock(lock, lost);
    expect(again).not.toBeNull();
    await again?.();
  });

  it('left by a holder that is gone is taken at once, not when stale', async () => {
    leftBy(deadPid(), await machine());
    const release = await tryLock(lock, lost);
    expect(release).not.toBeNull();
    await release?.();
  });

  it('is not taken from a holder on another host, or in another pid namespace', async () => {
    const here = await machine();
    leftBy(deadPid(), `${hostname()}-elsewhere`);
    expect(await tryLock(lock, lost)).toBeNull();
    leftBy(deadPid(), `${here}0`);
    expect(await tryLock(lock, lost)).toBeNull();
  });

  it('is not taken on a record that names another lock directory', async () => {
    const here = await machine();
    const ino = statOf();
    leftBy(deadPid(), here, ino + 1);
    expect(await tryLock(lock, lost)).toBeNull();
  });

  it('without a record of its holder waits to go stale', async () => {
    mkdirSync(lock);
    expect(await tryLock(lock, lost)).toBeNull();
  });
});
