import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { claimedDays, unclaimDay } from '../adapters/digest-days.js';
import { readOffset } from '../adapters/events-log.js';
import { exists } from '../adapters/files.js';
import { listOutbox, readClaim, readDelivery, removeDelivery } from '../adapters/outbox.js';
import { isAlive } from '../adapters/processes.js';
import { isDue, parseKey, removable } from '../core/notify/delivery.js';
import { dayOf, DIGEST_RUN } from '../core/notify/digest.js';
import { runPaths } from '../core/run/paths.js';

// The pass's side of the outbox: tidying under the lock, and handing what is due to a sender.

/** The CLI the sender runs: the package's bin, beside the bundle. */
const CLI_PATH = fileURLToPath(new URL('../bin/overnight.js', import.meta.url));

/** How long a pass waits for its sender; then the sender goes on alone (each try has its timeout). */
export const SENDER_WAIT_MS = 3_000;

/**
 * Under the pass lock (so no scan runs meanwhile): deliveries that are done and whose transition
 * every later scan is past go, and claims left without a delivery. Pending ones always stay.
 */
export function tidyOutbox(root: string, now: Date): void {
  try {
    const { keys, claims, done } = listOutbox(root);
    const present = new Set(keys);
    for (const key of new Set([...claims.keys(), ...done.keys()]))
      if (!present.has(key)) removeDelivery(root, key, claims.get(key) ?? 0);
    for (const key of keys) {
      // Only what is marked done may go: pending deliveries are not even read.
      if (!done.has(key)) continue;
      const d = readDelivery(root, key);
      if (!d || d.status === 'pending') continue;
      const paths = runPaths(root, d.run);
      // A removed run is scanned no more: nothing can queue its transitions again. A digest is
      // queued for today only: one for an earlier day may go (never today's, or it would be again).
      const scannedTo =
        d.run === DIGEST_RUN ? dayOf(now) : exists(paths.state) ? readOffset(paths.notifyOffset) : null;
      if (removable(d, scannedTo, now)) removeDelivery(root, key, claims.get(key) ?? 0);
    }
    // A day's claim outlives its digest's delivery by a day at least (a gathering may outlast midnight).
    const before = dayOf(new Date(now.getTime() - 2 * 24 * 3600_000));
    for (const key of claimedDays(root)) {
      const day = parseKey(key)?.offset;
      if (day !== undefined && day < before) unclaimDay(root, key);
    }
  } catch {
    // Tidying is for later passes too; it never fails this one.
  }
}

/** Whether some delivery is due and no live sender is on it. */
async function anythingDue(root: string, now: Date): Promise<boolean> {
  const { keys, claims, done } = listOutbox(root);
  for (const key of keys) {
    if (done.has(key)) continue;
    const d = readDelivery(root, key);
    if (!d || !isDue(d, now)) continue;
    const highest = claims.get(key) ?? 0;
    if (highest <= d.attempts) return true;
    const c = readClaim(root, key, highest);
    if (!c || !(await isAlive(c.pid, c.startTime))) return true;
  }
  return false;
}

/**
 * After the pass lets go of the lock: when something is due, a detached sender is started (it
 * survives this pass being killed) and waited for a few seconds at most. Never throws: a
 * notification never fails or holds up a pass.
 */
export async function dispatchDue(
  root: string,
  env: Record<string, string | undefined>,
  now: Date,
  waitMs = SENDER_WAIT_MS,
): Promise<void> {
  try {
    if (!(await anythingDue(root, now))) return;
    const { execa } = await import('execa');
    const log = join(root, 'reconcile.log');
    const sender = execa(process.execPath, [CLI_PATH, 'notify', 'deliver'], {
      detached: true,
      cleanup: false,
      reject: false,
      stdin: 'ignore',
      stdout: { file: log, append: true },
      stderr: { file: log, append: true },
      env: { ...env, OVERNIGHT_HOME: root },
      extendEnv: false,
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      sender.then(() => {}),
      new Promise<void>((r) => {
        timer = setTimeout(r, waitMs);
      }),
    ]);
    clearTimeout(timer);
    sender.unref();
  } catch {
    // The next pass finds the same deliveries due and tries again.
  }
}
