import { closeSync, constants, fstatSync, openSync, readSync, rmSync, writeSync } from 'node:fs';

import { hashText } from '../core/hash.js';
import { writeFileAtomic } from './files.js';

// The record of who holds the pass lock, beside it: one fixed-size slot, made once and then
// rewritten in place. A full disk is when passes fail and get killed mid-pass, and a record that
// needs a new block then could not be written: the lock would wait 10 s to go stale while every
// pass failed to start anything. Overwriting blocks the file already has needs no free space (on
// copy-on-write filesystems it may: then there is no record, and the lock goes stale as before).

/** Bytes of the slot: a record is about a hundred. */
const SLOT = 256;

/** The slot with `record` in it, checked by a hash of its own (a torn read is no record). */
function slotOf(record: string): Buffer {
  const slot = Buffer.alloc(SLOT, ' ');
  if (record) slot.write(`${record} ${hashText(record)}`.slice(0, SLOT - 1), 'utf8');
  slot[SLOT - 1] = 0x0a;
  return slot;
}

/** Writes into the existing slot; false when there is none to write into (or it is not ours). */
function writeInPlace(path: string, slot: Buffer): boolean {
  let fd: number;
  try {
    // Never through a link planted at the name, nor blocked by a FIFO there: only a regular file
    // of the slot's size is written.
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size !== SLOT || st.uid !== process.getuid?.()) return false;
    return writeSync(fd, slot, 0, SLOT, 0) === SLOT;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * Records the holder; best effort (without a record the lock is reclaimed when stale). True when
 * the slot was there already, written in place.
 */
export function writeOwner(path: string, record: string): boolean {
  const slot = slotOf(record);
  if (writeInPlace(path, slot)) return true;
  try {
    writeFileAtomic(path, slot.toString('utf8'), 0o600, { durable: false });
  } catch {
    // no record: the lock goes stale instead
  }
  return false;
}

/** As the lock is let go: the slot blanked, to be written again; or removed (`keep` false). */
export function clearOwner(path: string, keep: boolean): void {
  if (!keep || !writeInPlace(path, slotOf(''))) rmSync(path, { force: true });
}

/** The recorded holder, or null: none, blank, torn or not a record. */
export function readOwner(path: string): string | null {
  let text: string;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const slot = Buffer.alloc(SLOT);
    text = slot.toString('utf8', 0, readSync(fd, slot, 0, SLOT, 0)).trim();
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
  const at = text.lastIndexOf(' ');
  if (at <= 0) return null;
  const record = text.slice(0, at);
  return hashText(record) === text.slice(at + 1) ? record : null;
}
