import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import type { RunPaths } from '../core/run/paths.js';
import type { ReadContext } from '../read/context.js';

// Where the notifications meet the pass: one interface, three moments. Built only when a target
// is configured (its code is not even loaded otherwise); without one the outbox is left alone.

export interface PassHooks {
  /**
   * After a run was looked at, and before a finished run is summarized: its new transitions are
   * queued. False when that failed (a full disk): a finished run is then not forgotten yet, the
   * next pass tries again. Never throws.
   */
  afterRun(id: string, paths: RunPaths): Promise<boolean>;
  /** After the runs, still under the pass lock (no scan runs meanwhile): the outbox tidied. */
  afterRuns(now: Date): void;
  /**
   * After the lock is free: the day's digest gathered and queued (a slow gathering never holds up
   * the next pass), then what is due handed to a sender. Never throws.
   */
  afterUnlock(ctx: ReadContext, now: Date): Promise<void>;
}

/** Undefined when no target is configured: then nothing about notifications is done at all. */
export async function passHooks(settings: Settings, io: Io): Promise<PassHooks | undefined> {
  if (settings.notify.length === 0) return undefined;
  const [{ makeNotifier }, { dispatchDue, tidyOutbox }, { queueDigests }] = await Promise.all([
    import('../notify/queue.js'),
    import('../notify/dispatch.js'),
    import('../notify/digest.js'),
  ]);
  const notifier = makeNotifier(settings, io);
  const root = settings.runsDir;
  return {
    afterRun: (id, paths) => notifier.queue(id, paths),
    afterRuns: (now) => tidyOutbox(root, now),
    async afterUnlock(ctx, now) {
      // The morning digest, once a day per target that subscribes to it, after its local time.
      await queueDigests(ctx, now);
      // Deliveries queued by an earlier pass are sent to the configured target of their id only.
      await dispatchDue(root, io.env, io.now());
    },
  };
}
