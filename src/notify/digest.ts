import { claimDay, dayClaimed, unclaimDay } from '../adapters/digest-days.js';
import { createDelivery, hasDelivery, readSavedVars, saveVars } from '../adapters/outbox.js';
import type { Settings } from '../core/config/settings.js';
import { deliveryKey, newDelivery } from '../core/notify/delivery.js';
import { DIGEST_RUN, digestDue, digestEvent } from '../core/notify/digest.js';
import { DESKTOP_VARS } from '../core/notify/format.js';
import { varsOf, type NotifyTarget } from '../core/notify/targets.js';
import type { ReadContext } from '../read/context.js';
import { policyOf } from './queue.js';

// The morning digest by notification: the first pass after a target's `at:` queues the day's
// digest for it, one delivery per day and target (created once: its day is claimed first), which
// the sender delivers like any notice, with its retries and warnings. A day without runs gets the
// digest all the same ("No run ended or changed in the last 24h"): proof the supervisor runs.

/** The window of a digest sent by notification, as `overnight digest` has it by default. */
const WINDOW_S = 24 * 3600;

const subscribed = (targets: readonly NotifyTarget[]) =>
  targets.filter((t): t is NotifyTarget & { at: string } => t.on.includes('digest') && t.at !== undefined);

/** The variables a target needs to be reached: those it names, and a desktop's session. */
const namesOf = (t: NotifyTarget) => [...varsOf(t), ...(t.kind === 'desktop' ? DESKTOP_VARS : [])];

/**
 * After the pass lock (gathering reads every run of the day, and may take a while). Costs a pass
 * one stat or two per digest target until one is due; the digest is gathered only then. Once a
 * day per target, whatever passes run at once: the day is claimed (claimDay) before its delivery
 * is made, and a claimed day is never queued again. Never throws: a digest that cannot be queued
 * is tried by the next pass.
 */
export async function queueDigests(ctx: ReadContext, now: Date): Promise<void> {
  const root = ctx.root;
  const due = subscribed(ctx.settings.notify).flatMap((t) => {
    const day = digestDue(t.at, now);
    if (day === null) return [];
    const key = deliveryKey(DIGEST_RUN, day, t.id);
    return hasDelivery(root, key) || dayClaimed(root, key) ? [] : [{ t, day, key }];
  });
  if (due.length === 0) return;
  try {
    const { text, summary } = await digestText(ctx, now);
    // `${NAME}` from the environment of the newest launch (a pass from cron has none of it), else the pass's.
    const saved = readSavedVars(root);
    for (const { t, day, key } of due) {
      const vars: Record<string, string> = {};
      for (const n of namesOf(t)) {
        const v = saved[n] ?? ctx.io.env[n];
        if (v !== undefined) vars[n] = v;
      }
      // Another pass gathered it meanwhile and queued it first.
      if (!claimDay(root, key)) continue;
      const event = digestEvent(day, now, root, text, summary);
      try {
        createDelivery(root, newDelivery(event, day, t, vars, policyOf(ctx.settings), now));
      } catch (err) {
        unclaimDay(root, key);
        throw err;
      }
    }
  } catch (err) {
    ctx.io.stderr(
      `warning: the digest could not be queued (${(err as Error).message}); the next pass tries again`,
    );
  }
}

async function digestText(ctx: ReadContext, now: Date): Promise<{ text: string; summary: string }> {
  const { gatherDigest } = await import('../read/digest.js');
  const { digestText: lines, summaryLine } = await import('../core/digest/text.js');
  const { summarize } = await import('../core/digest/summary.js');
  const { localTime } = await import('../core/local-time.js');
  const since = new Date(now.getTime() - WINDOW_S * 1000);
  const runs = await gatherDigest(since, ctx);
  const text = lines({ now, since, window: 'the last 24h', runs }, localTime()).join('\n');
  return { text, summary: summaryLine(summarize(runs)) };
}

/**
 * At launch (and continue): the values the digest targets name, from the environment a run is
 * launched from, which is where every notification's `${NAME}` comes from. Only what they name is
 * kept. Never fails a launch.
 */
export function rememberDigestVars(
  root: string,
  settings: Settings,
  env: NodeJS.ProcessEnv,
  now: Date,
): void {
  const names = [...new Set(subscribed(settings.notify).flatMap(namesOf))];
  if (names.length === 0) return;
  const vars: Record<string, string> = {};
  for (const n of names) if (env[n] !== undefined) vars[n] = env[n] as string;
  try {
    saveVars(root, vars, now);
  } catch {
    // the pass's own environment is used then
  }
}
