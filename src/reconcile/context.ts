import type { Notifier } from '../notify/queue.js';
import type { ReadContext } from '../read/context.js';

// What one pass shares across runs: what reading them needs, and the pass's own state.

export interface PassContext extends ReadContext {
  /** Set when another pass reclaimed the lock: from then on this one starts and finishes nothing. */
  lockLost?: boolean;
  /** Queues each run's new transitions for the notification targets; absent when there are none. */
  notifier?: Notifier;
}
