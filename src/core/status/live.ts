import type { RetryStreak } from '../agent/retry.js';
import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import type { RunSpec, RunState } from '../run/types.js';
import { decide } from '../supervise/decide.js';
import { hasAgent } from '../supervise/live-states.js';
import type { Action, Observation } from '../supervise/types.js';

// What a live run is doing now when it is not plain work, one line each for the dashboard: a storm
// of API retries, silence under the hang watch, an end time passed with no pass to act on it. Pure.

/** The current session's unbroken run of api_retry events, as the row carries it. */
export interface Retrying {
  count: number;
  /** The HTTP status of the latest retry (429, 529, 401, …) and the CLI's word for it. */
  status: number | null;
  error: string | null;
  /** When the first retry of the run happened (ISO 8601), when known or estimated. */
  since: string | null;
}

/** `retrying the API: 14 tries since 02:14 (429 rate_limit)`. */
export function retryLine(r: Retrying, clock: LocalTime): string {
  const tries = `${r.count} ${r.count === 1 ? 'try' : 'tries'}`;
  const since = r.since ? ` since ${clock.hm(new Date(r.since))}` : '';
  const what = [r.status, r.error].filter((x) => x !== null && x !== '').join(' ');
  return `retrying the API: ${tries}${since}${what ? ` (${what})` : ''}`;
}

/**
 * A running agent under the hang watch, from the action the next pass would take: `silent for 12m:
 * stopped as hung if still silent at 03:32`.
 */
export function hangLine(
  action: Action,
  silentSince: Date | null,
  watchedSince: Date | null,
  hangGrace: number,
  now: Date,
  clock: LocalTime,
): string | null {
  if (action.cause !== 'silent' || !silentSince) return null;
  const quiet = formatDuration(Math.max(0, (now.getTime() - silentSince.getTime()) / 1000));
  const from = watchedSince && watchedSince >= silentSince ? watchedSince : now;
  const at = new Date(from.getTime() + hangGrace * 1000);
  return `silent for ${quiet}: stopped as hung if still silent at ${clock.hm(at)}`;
}

/** With a schedule, a pass is due within minutes of the end time: only a longer silence is news. */
const PASS_DUE = 10 * 60;

export interface Passes {
  lastPassAt: Date | null;
  /** A schedule is installed to run passes. */
  scheduled: boolean;
}

/**
 * A live agent past its end time with no pass since: nothing will interrupt it or write the report
 * until one runs (no schedule installed, or it stopped running).
 */
export function pastEndLine(
  row: { state: RunState; endsAt: string | null },
  passes: Passes,
  now: Date,
  clock: LocalTime,
  cmd = 'overnight',
): string | null {
  if (!hasAgent(row.state) || !row.endsAt) return null;
  const ends = new Date(row.endsAt);
  const { lastPassAt, scheduled } = passes;
  if (now < ends || (lastPassAt && lastPassAt >= ends)) return null;
  const seconds = (now.getTime() - ends.getTime()) / 1000;
  if (scheduled && seconds < PASS_DUE) return null;
  const past = formatDuration(seconds);
  return (
    `past its end time (${clock.hm(ends)}) by ${past} and no pass has run since: nothing stops it or ` +
    `writes the report; run ${cmd} reconcile, or ${cmd} schedule install`
  );
}

/** A storm's start: the first retry's own time, or the log's last write less the waits between tries. */
export function retrying(streak: RetryStreak, lastWrite: Date | null): Retrying {
  const since =
    streak.at ?? (lastWrite ? new Date(lastWrite.getTime() - streak.delayMs).toISOString() : null);
  return {
    count: streak.count,
    status: streak.status,
    error: streak.error,
    since,
  };
}

/** What the dashboard says a live agent is doing besides plain work: retrying the API, being silent. */
export function doingNow(
  spec: RunSpec,
  obs: Observation,
  current: { retrying: RetryStreak | null } | undefined,
  now: Date,
  clock: LocalTime,
): { doing: string[]; retrying?: Retrying } {
  const agent = obs.session?.agent;
  if (!obs.session || !agent?.running || obs.sentinel || obs.paused) return { doing: [] };
  const doing: string[] = [];
  const storm = current?.retrying ? retrying(current.retrying, obs.outputAt) : undefined;
  if (storm) doing.push(retryLine(storm, clock));
  const started = obs.session.startedAt;
  const silentSince = obs.outputAt && obs.outputAt > started ? obs.outputAt : started;
  const hang = hangLine(
    decide(spec, obs, now),
    silentSince,
    agent.staleSince,
    spec.limits.hangGrace,
    now,
    clock,
  );
  if (hang) doing.push(hang);
  return { doing, ...(storm ? { retrying: storm } : {}) };
}
