import type { Clock } from '../adapters/clock.js';
import { exists } from '../adapters/files.js';
import {
  claimAttempt,
  listOutbox,
  markDone,
  readClaim,
  readDelivery,
  writeDelivery,
} from '../adapters/outbox.js';
import { isAlive, startTimeOf } from '../adapters/processes.js';
import { appendEvent } from '../adapters/store.js';
import { localTime } from '../core/local-time.js';
import { maskSecrets } from '../core/mask.js';
import {
  afterAttempt,
  isDue,
  LOST_ATTEMPT,
  nextAttempt,
  RUN_GONE,
  type Delivery,
} from '../core/notify/delivery.js';
import type { NotifyTarget } from '../core/notify/targets.js';
import { runPaths } from '../core/run/paths.js';
import { sendTo } from './send.js';

// The sender: `overnight notify deliver`, started detached by a pass so that a pass killed
// mid-request does not take the request with it. It claims each attempt before making it and
// records the outcome after.
//
// The window that remains: if the sender itself dies after a target received a request but
// before the outcome is written (a reboot, kill -9 of the sender, within the milliseconds of one
// request), a later sender cannot tell whether it arrived and sends it again. That is the one
// duplicate possible; no delivery is lost to it.

export interface DeliverReport {
  run: string;
  key: string;
  target: string;
  event: string;
  status: 'sent' | 'pending' | 'failed';
  said: string;
}

/**
 * `targets`: the person's configured ones. A delivery names its target by id only as far as the
 * sender is concerned: what is run or posted to is the configured target of that id, never what
 * the file says (a delivery whose target is no longer configured is given up).
 */
export async function deliverDue(
  root: string,
  targets: readonly NotifyTarget[],
  env: Record<string, string | undefined>,
  now: Clock,
  platform: string,
): Promise<DeliverReport[]> {
  const { keys, claims, done } = listOutbox(root);
  const byTarget = new Map<string, Delivery[]>();
  for (const key of keys) {
    if (done.has(key)) continue;
    const d = readDelivery(root, key);
    if (!d || !isDue(d, now())) continue;
    byTarget.set(d.target.id, [...(byTarget.get(d.target.id) ?? []), d]);
  }
  if (byTarget.size === 0) return [];
  const owner = `${process.pid} ${(await startTimeOf(process.pid)) ?? 'unknown'}`;
  const reports: DeliverReport[] = [];
  // Targets in parallel; one target's events in the order they happened, and once it fails the
  // rest wait for a later pass (they are not counted as tries).
  await Promise.all(
    [...byTarget.values()].map(async (list) => {
      list.sort((a, b) => a.event.at.localeCompare(b.event.at) || a.key.localeCompare(b.key));
      for (const d of list) {
        const r = await deliverOne(root, d.key, claims.get(d.key) ?? 0, owner, targets, env, now, platform);
        if (r) reports.push(r);
        if (r && r.status !== 'sent') break;
      }
    }),
  );
  return reports;
}

async function deliverOne(
  root: string,
  key: string,
  highestClaim: number,
  owner: string,
  targets: readonly NotifyTarget[],
  env: Record<string, string | undefined>,
  now: Clock,
  platform: string,
): Promise<DeliverReport | null> {
  const d = readDelivery(root, key);
  if (!d || !isDue(d, now())) return null;
  let alive = false;
  if (highestClaim > d.attempts) {
    const c = readClaim(root, key, highestClaim);
    alive = c !== null && (await isAlive(c.pid, c.startTime));
  }
  const next = nextAttempt(d, highestClaim, alive);
  if (!next || !claimAttempt(root, key, next.claim, owner)) return null;
  // Read again now that the attempt is ours: a sender that just finished may have recorded it.
  const current = readDelivery(root, key);
  if (!current || current.status !== 'pending' || current.attempts >= next.claim) return null;

  let updated: Delivery;
  const target = targets.find((t) => t.id === current.target.id);
  if (!target) {
    updated = afterAttempt(current, next.claim, { ok: false, error: NOT_CONFIGURED, permanent: true }, now());
  } else if (gone(current.event.workspace)) {
    // Archived or deleted since it was queued: old news, naming a path that is gone. Never sent,
    // never tried again.
    updated = afterAttempt(current, next.claim, { ok: false, error: RUN_GONE, permanent: true }, now());
  } else if (next.lost && next.claim - 1 >= current.policy.tries) {
    updated = afterAttempt(current, next.claim - 1, { ok: false, error: LOST_ATTEMPT }, now());
  } else {
    const outcome = await sendTo(target, current.event, {
      vars: current.vars,
      env,
      timeoutMs: current.policy.timeout * 1000,
      clock: localTime(),
      platform,
    });
    updated = afterAttempt(current, next.claim, outcome, now());
  }
  writeDelivery(root, updated);
  if (updated.status !== 'pending') markDone(root, key, updated.status);
  if (updated.status === 'failed') recordGiveUp(root, updated, now());
  return {
    run: updated.run,
    key,
    target: updated.target.label,
    event: updated.event.event,
    status: updated.status,
    said: updated.status === 'sent' ? (updated.answer ?? '') : (updated.lastError ?? ''),
  };
}

const NOT_CONFIGURED = 'its target is no longer among the notify: targets of config.yaml';

/** The sentence the night's story shows for it. */
export function giveUpReason(d: Delivery): string {
  const tries = `${d.attempts} ${d.attempts === 1 ? 'try' : 'tries'}`;
  const notice = `the ${d.event.event} notice to ${d.target.label}`;
  return `${notice} was given up after ${tries}: ${maskSecrets(d.lastError ?? '?')}`;
}

/** A notice given up for good goes into the run's own story; status warns about it too. */
function recordGiveUp(root: string, d: Delivery, at: Date): void {
  const paths = runPaths(root, d.run);
  if (!exists(paths.state)) return;
  try {
    appendEvent(paths, at, {
      action: 'notify-failed',
      reason: giveUpReason(d),
      event: d.event.event,
      transition: d.event.at,
      target: d.target.label,
      error: d.lastError === undefined ? undefined : maskSecrets(d.lastError),
      tries: d.attempts,
    });
  } catch {
    // the outbox still has it, and status shows it from there
  }
}

/** A run's directory that a notice names and that is no longer there (a digest names none). */
function gone(workspace: unknown): boolean {
  return typeof workspace === 'string' && workspace !== '' && !exists(workspace);
}
