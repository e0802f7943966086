import { readSentinel, readTail } from '../adapters/store.js';
import { parseEvents } from '../core/run/events.js';
import { startVerdict, type StartVerdict } from '../core/run/first-seconds.js';
import type { RunPaths } from '../core/run/paths.js';

// `launch --wait`: the run's first seconds watched from its records (the sentinel and the causes
// in events.jsonl), until it has a verdict or the time is up. Reads only; the passes act.

/** How much of events.jsonl's end is read: a run's first seconds are a few lines. */
const EVENTS_TAIL = 256 * 1024;
const POLL_MS = 250;

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

function verdictNow(paths: RunPaths): StartVerdict {
  let sentinel = null;
  try {
    sentinel = readSentinel(paths);
  } catch {
    // being written, or unreadable: the next look or the events say it
  }
  return startVerdict(sentinel, parseEvents(readTail(paths.events, EVENTS_TAIL)));
}

/** The first verdict within `seconds`, or null when the run is still at work then. */
export async function watchFirstSeconds(
  paths: RunPaths,
  seconds: number,
  now: () => Date,
): Promise<StartVerdict> {
  const deadline = now().getTime() + seconds * 1000;
  for (;;) {
    const verdict = verdictNow(paths);
    if (verdict) return verdict;
    if (now().getTime() >= deadline) return null;
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - now().getTime())));
  }
}
