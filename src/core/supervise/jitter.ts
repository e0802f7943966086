import { hashText } from '../hash.js';

// Runs that hit one limit must not all start again in the same second after it resets: each waits
// a little longer, by an amount fixed by its id and the reset, so decide stays pure and passes
// agree on it. Pure.

/** The most a wait after a usage limit's reset is spread by. */
export const MAX_LIMIT_JITTER = 5 * 60;

/**
 * Seconds (0 up to `limit_margin`, at most MAX_LIMIT_JITTER) added after a reset plus its margin:
 * a margin of seconds (tests compressing a night) keeps the spread as small.
 */
export function limitJitter(runId: string, resetsAt: Date, limitMargin: number): number {
  const spread = Math.max(0, Math.min(MAX_LIMIT_JITTER, limitMargin));
  const fraction = parseInt(hashText(`${runId}@${resetsAt.toISOString()}`).slice(-8), 16) / 2 ** 32;
  return Math.floor(fraction * (spread + 1));
}
