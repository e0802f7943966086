import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

import { parseDelivery, type Delivery } from '../core/notify/delivery.js';
import { describeOwnerProblem, ownerProblem } from '../core/run/owner.js';
import { rootPaths } from '../core/run/paths.js';
import { parsePidRecord } from '../core/run/records.js';
import { readText, writeFileAtomic } from './files.js';
import { myUid, ownerProblemAt } from './owner.js';

// The outbox: notifications on their way, in the runs root (outside every workspace: a delivery
// may hold a token the agent must not read). `<key>.json` is a delivery; `<key>.claim-<n>` says
// which sender makes attempt n; an empty `<key>.sent` or `<key>.failed` marks one that is done, so
// a pass tells what is due from one directory read. Nothing here judges; core/notify/delivery.ts does.

export type DoneMark = 'sent' | 'failed';

export interface OutboxListing {
  keys: string[];
  /** The highest attempt claimed, per delivery key. */
  claims: Map<string, number>;
  /** Deliveries that are done, as their markers say (written after their record). */
  done: Map<string, DoneMark>;
}

let counter = 0;

function dir(root: string): string {
  return rootPaths(root).notify;
}

/**
 * Why the outbox must not be used at all (another user owns it or can write in it), in one line
 * with the fix; null when it is the person's own, or not there.
 */
export function outboxProblem(root: string): string | null {
  const problem = ownerProblemAt(dir(root));
  return problem ? describeOwnerProblem(`the outbox ${dir(root)}`, problem) : null;
}

/**
 * One directory read; empty when there is no outbox (no target was ever configured), or when
 * another user could have planted what it holds (outboxProblem says so).
 */
export function listOutbox(root: string): OutboxListing {
  const keys: string[] = [];
  const claims = new Map<string, number>();
  const done = new Map<string, DoneMark>();
  let names: string[];
  if (outboxProblem(root)) return { keys, claims, done };
  try {
    names = readdirSync(dir(root));
  } catch {
    return { keys, claims, done };
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    // Attempts are few: a claim past 9999 is none overnight made, and is never looped to.
    const claim = /^(.+)\.claim-(\d{1,4})$/.exec(name);
    const mark = /^(.+)\.(sent|failed)$/.exec(name);
    if (claim) {
      const key = claim[1] as string;
      claims.set(key, Math.max(claims.get(key) ?? 0, Number(claim[2])));
    } else if (mark) done.set(mark[1] as string, mark[2] as DoneMark);
    else if (name.endsWith('.json')) keys.push(name.slice(0, -'.json'.length));
  }
  return { keys: keys.sort(), claims, done };
}

/**
 * A delivery the person wrote (a pass of theirs): a regular file they own that nobody else can
 * write. Anything else is ignored, never read: another user may have planted it.
 */
export function readDelivery(root: string, key: string): Delivery | null {
  try {
    const path = join(dir(root), `${key}.json`);
    const st = lstatSync(path);
    if (!st.isFile() || ownerProblem({ path, uid: st.uid, mode: st.mode & 0o777 }, myUid())) return null;
    const text = readText(path);
    return text === null ? null : parseDelivery(text);
  } catch {
    return null;
  }
}

/**
 * Creates the delivery unless one with its key exists, whatever its state: written to a temp file,
 * flushed, then linked into place (a link never replaces a file). False when it existed.
 */
export function createDelivery(root: string, d: Delivery): boolean {
  const d0 = dir(root);
  mkdirSync(d0, { recursive: true, mode: 0o700 });
  const tmp = join(d0, `.new-${process.pid}-${counter++}.tmp`);
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(d) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, join(d0, `${d.key}.json`));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Replaces the delivery's record; only the sender holding its current claim does this. */
export function writeDelivery(root: string, d: Delivery): void {
  writeFileAtomic(join(dir(root), `${d.key}.json`), JSON.stringify(d) + '\n');
}

/** Marks a delivery done, after its record says so: a marker without a done record never exists. */
export function markDone(root: string, key: string, mark: DoneMark): void {
  writeFileSync(join(dir(root), `${key}.${mark}`), '', { mode: 0o600 });
}

/** Claims attempt `n` for this process (`<pid> <start time>`); false when another already has. */
export function claimAttempt(root: string, key: string, n: number, owner: string): boolean {
  let fd: number;
  try {
    fd = openSync(join(dir(root), `${key}.claim-${n}`), 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, owner + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Who claimed attempt `n`; null when the claim is unreadable (torn by a crash: treated as dead). */
export function readClaim(root: string, key: string, n: number): { pid: number; startTime: string } | null {
  try {
    return parsePidRecord(readText(join(dir(root), `${key}.claim-${n}`)) ?? '');
  } catch {
    return null;
  }
}

/** The delivery first (what is left without one is harmless and removed next time), then the rest. */
export function removeDelivery(root: string, key: string, highestClaim: number): void {
  rmSync(join(dir(root), `${key}.json`), { force: true });
  for (const mark of ['sent', 'failed']) rmSync(join(dir(root), `${key}.${mark}`), { force: true });
  for (let n = 1; n <= Math.min(highestClaim, 9999); n++) {
    try {
      unlinkSync(join(dir(root), `${key}.claim-${n}`));
    } catch {
      // never made, or already gone
    }
  }
}

/** Whether a delivery with this key is in the outbox, in whatever state. */
export function hasDelivery(root: string, key: string): boolean {
  return existsSync(join(dir(root), `${key}.json`));
}

/** Values a digest target names, from the newest launch's environment (0600, beside the deliveries). */
export function readSavedVars(root: string): Record<string, string> {
  try {
    const v = JSON.parse(readText(join(dir(root), SAVED_VARS)) ?? '{}') as { vars?: Record<string, unknown> };
    return Object.fromEntries(
      Object.entries(v.vars ?? {}).filter(([, x]) => typeof x === 'string'),
    ) as Record<string, string>;
  } catch {
    return {};
  }
}

export function saveVars(root: string, vars: Record<string, string>, at: Date): void {
  mkdirSync(dir(root), { recursive: true, mode: 0o700 });
  writeFileAtomic(join(dir(root), SAVED_VARS), JSON.stringify({ at: at.toISOString(), vars }) + '\n');
}

/** A dot file: never taken for a delivery. */
const SAVED_VARS = '.digest-vars.json';

/** A run's values of the variables its targets name (withheld from its agent): a dot file too. */
const runVarsFile = (root: string, id: string) => join(dir(root), `.run-vars-${id}.json`);

export function saveRunVars(root: string, id: string, vars: Record<string, string>): void {
  mkdirSync(dir(root), { recursive: true, mode: 0o700 });
  writeFileAtomic(runVarsFile(root, id), JSON.stringify({ vars }) + '\n');
}

/** Empty when there are none, or when the file is not the person's own. */
export function readRunVars(root: string, id: string): Record<string, string> {
  try {
    const path = runVarsFile(root, id);
    const st = lstatSync(path);
    if (!st.isFile() || ownerProblem({ path, uid: st.uid, mode: st.mode & 0o777 }, myUid())) return {};
    const v = JSON.parse(readText(path) ?? '{}') as { vars?: Record<string, unknown> };
    return Object.fromEntries(
      Object.entries(v.vars ?? {}).filter(([, x]) => typeof x === 'string'),
    ) as Record<string, string>;
  } catch {
    return {};
  }
}

export function removeRunVars(root: string, id: string): void {
  rmSync(runVarsFile(root, id), { force: true });
}
