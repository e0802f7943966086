import { maskSecrets } from '../mask.js';
import { plural } from '../text.js';
import type { NotifyEvent } from './events.js';
import type { NotifyTarget } from './targets.js';

// One event for one target, from queued to sent or given up: the record a sender works from and
// the rules for what an attempt leads to. Pure: times are values.

export interface Policy {
  /** Seconds one attempt may take. */
  timeout: number;
  /** Attempts before a delivery is given up. */
  tries: number;
  /** Seconds before the first retry; each later one waits twice as long, up to an hour. */
  backoff: number;
}

export type DeliveryStatus = 'pending' | 'sent' | 'failed';

/**
 * Self-contained: a sender needs neither the config (it may have changed since) nor the run's
 * launch environment (removed when the run ends); `vars` holds only the values the target names.
 */
export interface Delivery {
  v: 1;
  key: string;
  run: string;
  /** Byte offset of the transition in the run's events.jsonl. */
  offset: number;
  target: NotifyTarget;
  vars: Record<string, string>;
  event: NotifyEvent;
  policy: Policy;
  status: DeliveryStatus;
  /** Attempts made, those a dead sender left unfinished included. */
  attempts: number;
  queuedAt: string;
  /** Not tried again before this time. */
  nextAt: string;
  doneAt?: string;
  /** What the target answered (`HTTP 200`, `exit 0`). */
  answer?: string;
  lastError?: string;
}

/** A file name's worth: run id, offset and target id are all `[a-z0-9-]`. */
export function deliveryKey(run: string, offset: number, targetId: string): string {
  return `${run}.${offset}.${targetId}`;
}

export function parseKey(key: string): { run: string; offset: number; target: string } | null {
  const m = /^(.+)\.(\d+)\.([0-9a-f]+)$/.exec(key);
  return m ? { run: m[1] as string, offset: Number(m[2]), target: m[3] as string } : null;
}

export function newDelivery(
  event: NotifyEvent,
  offset: number,
  target: NotifyTarget,
  vars: Record<string, string>,
  policy: Policy,
  now: Date,
): Delivery {
  return {
    v: 1,
    key: deliveryKey(event.run, offset, target.id),
    run: event.run,
    offset,
    target,
    vars,
    event,
    policy,
    status: 'pending',
    attempts: 0,
    queuedAt: now.toISOString(),
    nextAt: now.toISOString(),
  };
}

export function parseDelivery(text: string): Delivery | null {
  try {
    const d = JSON.parse(text) as Partial<Delivery>;
    const ok =
      d.v === 1 &&
      typeof d.key === 'string' &&
      typeof d.run === 'string' &&
      typeof d.offset === 'number' &&
      typeof d.attempts === 'number' &&
      ['pending', 'sent', 'failed'].includes(d.status as string) &&
      typeof d.target === 'object' &&
      typeof d.event === 'object' &&
      typeof d.policy === 'object' &&
      typeof d.nextAt === 'string';
    return ok ? (d as Delivery) : null;
  } catch {
    return null;
  }
}

export type Outcome = { ok: true; answer: string } | { ok: false; error: string; permanent?: boolean };

const MAX_BACKOFF_S = 3600;

/** Seconds to wait after `attempts` failed ones: backoff, doubling, at most an hour. */
export function retryDelay(attempts: number, policy: Policy): number {
  return Math.min(MAX_BACKOFF_S, policy.backoff * 2 ** Math.max(0, attempts - 1));
}

/** The record after attempt number `n` ended with `outcome`. */
export function afterAttempt(d: Delivery, n: number, outcome: Outcome, now: Date): Delivery {
  const at = now.toISOString();
  if (outcome.ok) return { ...d, attempts: n, status: 'sent', doneAt: at, answer: outcome.answer };
  const base = { ...d, attempts: n, lastError: outcome.error };
  if (outcome.permanent || n >= Math.max(1, d.policy.tries)) return { ...base, status: 'failed', doneAt: at };
  const next = new Date(now.getTime() + retryDelay(n, d.policy) * 1000);
  return { ...base, status: 'pending', nextAt: next.toISOString() };
}

export function isDue(d: Delivery, now: Date): boolean {
  return d.status === 'pending' && new Date(d.nextAt).getTime() <= now.getTime();
}

/**
 * Which attempt a sender may claim. Claims are numbered files, each created once (O_EXCL) and kept
 * until the delivery is removed, so one attempt number is only ever made by one sender. The
 * highest claim beyond the recorded attempts is in progress while its sender lives; if that
 * sender died, whether its request arrived is unknown: it counts as made, and the next is tried
 * (a duplicate is better than a lost "your run failed").
 */
export function nextAttempt(
  d: Delivery,
  highestClaim: number,
  claimantAlive: boolean,
): { claim: number; lost: boolean } | null {
  if (highestClaim <= d.attempts) return { claim: d.attempts + 1, lost: false };
  if (claimantAlive) return null;
  return { claim: highestClaim + 1, lost: true };
}

/** A dead sender's attempt, recorded as the failure it may have been. */
export const LOST_ATTEMPT = 'the sender stopped during the last try (whether it arrived is unknown)';

/** Kept a while after they are done: passes that scanned before may not re-queue them. */
const SENT_KEEP_MS = 3600_000;
/** Given-up deliveries stay for status to warn about, then only the events log has them. */
const FAILED_KEEP_MS = 7 * 24 * 3600_000;

/** A finished delivery that may go: old enough, and its transition scanned for good. */
export function removable(d: Delivery, scannedTo: number | null, now: Date): boolean {
  if (d.status === 'pending' || !d.doneAt) return false;
  if (scannedTo !== null && scannedTo <= d.offset) return false;
  const age = now.getTime() - new Date(d.doneAt).getTime();
  return age >= (d.status === 'sent' ? SENT_KEEP_MS : FAILED_KEEP_MS);
}

/** Why a notice of a run archived or deleted after it was queued is not sent (not a failure). */
export const RUN_GONE = 'the run was archived or deleted before the notice went out; it is not sent';

/** The line status shows for a delivery that has failed, once or for good; null when it has not. */
export function failureWarning(d: Delivery): string | null {
  if (!d.lastError || d.status === 'sent' || d.lastError === RUN_GONE) return null;
  // Masked again: a record written by an older version may hold a URL whole.
  const head = `notifications failing: ${d.target.label}: ${maskSecrets(d.lastError)}`;
  if (d.status === 'failed')
    return `${head} (the ${d.event.event} notice was given up after ${plural(d.attempts, 'try', 'tries')})`;
  return `${head} (${plural(d.attempts, 'try', 'tries')} of ${d.policy.tries}; later passes try again)`;
}
