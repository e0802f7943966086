import type { ReadContext } from '../read/context.js';
import type { PassHooks } from './hooks.js';

// What one pass shares across runs: what reading them needs, and the pass's own state.

export interface PassContext extends ReadContext {
  /** Set when another pass reclaimed the lock: from then on this one starts and finishes nothing. */
  lockLost?: boolean;
  /** The notifications' side of the pass; absent when no target is configured (or a dry run). */
  hooks?: PassHooks;
}
