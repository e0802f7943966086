import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { tryLock, waitLock } from '../../src/adapters/lock.js';
import { hashText } from '../../src/core/hash.js';

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

/** The record as the lock writes it: a fixed slot, the record and its hash. */
const slot = (record: string) => `${record} ${hashText(record)}`.padEnd(255, ' ') + '\n';

/** A lock as a pass killed with SIGKILL leaves it: fresh (not stale), its holder recorded. */
function leftBy(pid: number, host: string, ino = statOf()) {
  writeFileSync(`${lock}.owner`, slot(`${ino} ${host} ${pid} 12345`));
}
const statOf = () => (existsSync(lock) ? statSync(lock).ino : (mkdirSync(lock), statSync(lock).ino));

describe('the pass lock', () => {
  it('is held by one at a time, and its holder is recorded until it lets go', async () => {
    const release = await tryLock(lock, lost);
    expect(release).not.toBeNull();
    expect(readFileSync(`${lock}.owner`, 'utf8')).toContain(` ${process.pid} `);
    expect(await tryLock(lock, lost)).toBeNull();
    const file = statSync(`${lock}.owner`);
    await release?.();
    // Blanked in place as it lets go: the same file is written by the next holder (no new block).
    expect(readFileSync(`${lock}.owner`, 'utf8').trim()).toBe('');
    const again = await tryLock(lock, lost);
    expect(again).not.toBeNull();
    expect(readFileSync(`${lock}.owner`, 'utf8')).toContain(` ${process.pid} `);
    expect(statSync(`${lock}.owner`).ino).toBe(file.ino);
    await again?.();
  });

  it("taken by a command where no pass has been, leaves no record behind; else blanks the pass's", async () => {
    const release = await waitLock(lock, 1000, lost);
    expect(readFileSync(`${lock}.owner`, 'utf8')).toContain(` ${process.pid} `);
    await release();
    expect(existsSync(`${lock}.owner`)).toBe(false);
    await (
      await tryLock(lock, lost)
    )?.();
    const again = await waitLock(lock, 1000, lost);
    await again();
    expect(readFileSync(`${lock}.owner`, 'utf8').trim()).toBe('');
  });

  it('is not taken on a torn or altered record: it waits to go stale', async () => {
    const here = await machine();
    leftBy(deadPid(), here);
    const text = readFileSync(`${lock}.owner`, 'utf8');
    writeFileSync(`${lock}.owner`, text.replace(/ (\d+) 12345/, ' 1$1 12345'));
    expect(await tryLock(lock, lost)).toBeNull();
    writeFileSync(`${lock}.owner`, text.slice(0, 20));
    expect(await tryLock(lock, lost)).toBeNull();
  });

  it('is neither blocked nor fooled by a FIFO planted at its record', async () => {
    spawnSync('mkfifo', [`${lock}.owner`]);
    mkdirSync(lock);
    expect(await tryLock(lock, lost)).toBeNull();
    rmSync(lock, { recursive: true });
    const release = await tryLock(lock, lost);
    expect(release).not.toBeNull();
    await release?.();
  });

  it('never writes through a link planted at its record', async () => {
    const target = join(dir, 'precious');
    writeFileSync(target, 'x'.repeat(256));
    symlinkSync(target, `${lock}.owner`);
    const release = await tryLock(lock, lost);
    expect(release).not.toBeNull();
    await release?.();
    expect(readFileSync(target, 'utf8')).toBe('x'.repeat(256));
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
