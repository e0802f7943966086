import { readlinkSync, renameSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import lockfile from 'proper-lockfile';

import { lockFs } from './lock-fs.js';
import { clearOwner, readOwner, writeOwner } from './lock-owner.js';
import { startTimeOf } from './processes.js';

// One reconcile pass at a time per runs root. A lock left by a killed pass goes stale and is
// reclaimed; one whose holder is known dead (same host, its pid and start time gone) at once.

const STALE_MS = 10_000;

export type Release = () => Promise<void>;

/** Who holds the lock: `<lock dir's inode> <host> <pid> <start time>`, beside the lock directory. */
const ownerFile = (lockPath: string) => `${lockPath}.owner`;

/** This machine, and on Linux its pid namespace: a container's pids are not the host's. */
function machine(): string {
  try {
    return `${hostname()}/${readlinkSync('/proc/self/ns/pid').replace(/\s/g, '')}`;
  } catch {
    return hostname();
  }
}

/** The lock, or null at once when another live pass holds it. */
export function tryLock(lockPath: string, onLost: (err: Error) => void): Promise<Release | null> {
  return takeLock(lockPath, onLost, true);
}

/**
 * `keep`: the holder's record stays, blanked, for the next holder to write in place (a pass: the
 * runs root is in use). A command that finds none makes one and removes it, so that a launch
 * refused under the lock leaves nothing in a new runs root.
 */
async function takeLock(
  lockPath: string,
  onLost: (err: Error) => void,
  keep: boolean,
): Promise<Release | null> {
  for (let tries = 1; ; tries++) {
    try {
      const release = await lockfile.lock(lockPath, {
        lockfilePath: lockPath,
        fs: lockFs,
        realpath: false,
        stale: STALE_MS,
        retries: 0,
        onCompromised: onLost,
      });
      const hadRecord = await recordOwner(lockPath);
      return async () => {
        clearOwner(ownerFile(lockPath), keep || hadRecord);
        await release();
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      if (tries > 1 || !(await reclaimFromDead(lockPath))) return null;
    }
  }
}

/**
 * Best effort: without the record, the lock is reclaimed when stale, as before. True when the
 * record's slot was there already.
 */
async function recordOwner(lockPath: string): Promise<boolean> {
  try {
    const start = await startTimeOf(process.pid);
    if (start === null) return false;
    const { ino } = statSync(lockPath);
    // No fsync: a record lost to a power cut only means the lock goes stale instead, as without one.
    return writeOwner(ownerFile(lockPath), `${ino} ${machine()} ${process.pid} ${start}`);
  } catch {
    return false; // no record: the lock goes stale instead
  }
}

/**
 * A lock whose recorded holder ran on this host and is gone (a pass killed with SIGKILL) is moved
 * aside, so that nobody waits for it to go stale. The record must name this very lock directory
 * (its inode): a record left beside a newer lock is no word on it. True when it was moved aside.
 */
async function reclaimFromDead(lockPath: string): Promise<boolean> {
  const text = readOwner(ownerFile(lockPath));
  let ino: number;
  try {
    ino = statSync(lockPath).ino;
  } catch {
    return false;
  }
  if (text === null) return false;
  const [recordedIno, host, pidText, ...start] = text.split(' ');
  const pid = Number(pidText);
  if (recordedIno !== String(ino) || host !== machine() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid || (await startTimeOf(pid)) === start.join(' ')) return false;
  const aside = `${lockPath}.dead-${process.pid}-${Date.now()}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return false; // another pass moved it first
  }
  // Moved between the look and the move, and taken anew: it goes back (its holder is alive).
  if (statSync(aside, { throwIfNoEntry: false })?.ino !== ino) {
    try {
      renameSync(aside, lockPath);
    } catch {
      // taken again meanwhile: its holder finds its lock gone and stops (onCompromised)
    }
    return false;
  }
  rmSync(aside, { recursive: true, force: true });
  return true;
}

/** Waits for the lock (launch and stop must not race a pass); throws after `waitMs`. */
export async function waitLock(
  lockPath: string,
  waitMs: number,
  onLost: (err: Error) => void,
): Promise<Release> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const release = await takeLock(lockPath, onLost, false);
    if (release) return release;
    if (Date.now() >= deadline)
      throw new Error(
        `another overnight command held the lock ${lockPath} ` +
          `for over ${Math.round(waitMs / 1000)}s; try again`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
