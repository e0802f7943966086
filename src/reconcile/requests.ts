import type { Outcome } from './run.js';

export type PassResult =
  /** `runs`: how many live runs the pass looked at. */
  | { ran: true; outcomes: Outcome[]; runs?: number }
  /** Another pass held the lock; it runs once more for this request before it lets go. */
  | { ran: false; outcomes: [] };

/** Extra passes one caller runs for requests that came while it held the lock. */
const MAX_AGAIN = 3;

/**
 * A request written after the holder's last look but before it let go would be lost (nobody may
 * pass again tonight): the holder looks once more when free and takes the lock again. When
 * another pass has it by then, that one looks before it lets go. Bounded: a request still left
 * after that is served by the next scheduled pass.
 */
export async function serveRequests(
  once: (again: boolean) => Promise<PassResult>,
  requested: () => boolean,
): Promise<PassResult> {
  let result = await once(false);
  for (let n = 0; result.ran && n < MAX_AGAIN && requested(); n++) {
    const next = await once(true);
    if (!next.ran) break;
    const runs = Math.max(result.runs ?? 0, next.runs ?? 0);
    result = { ran: true, outcomes: [...result.outcomes, ...next.outcomes], runs };
  }
  return result;
}
