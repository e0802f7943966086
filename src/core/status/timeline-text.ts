import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import { hangWords } from '../supervise/legacy-cause.js';
import { money } from './table.js';
import type { SessionEntry, TimelineEntry } from './timeline.js';

// The timeline said for a person, one line per entry, clock text in the zone given. Pure.

function started(e: SessionEntry): string {
  const n = `session ${e.session}`;
  switch (e.mode) {
    case 'initial':
      return e.why && e.why !== 'first session' ? `${n} started: ${e.why}` : `${n} started`;
    case 'resume': {
      // Why it was resumed is how the session before ended, said on that one's line.
      const restart = e.restart ? ` (restart ${e.restart.count}/${e.restart.max})` : '';
      return `${n} resumed${restart}${e.fresh ? ` in a fresh conversation: ${e.fresh}` : ''}`;
    }
    case 'continue':
      return `${n} continued: ${e.why}`;
    case 'retry':
      return `${n} retried: ${e.why}`;
    case 'fix':
      return `${n}, a fix for what the check found, started: ${e.why}`;
    case 'synthesis':
      return `${n}, the synthesis, started: ${e.why}`;
    default:
      return `${n} (${e.mode}) started: ${e.why}`;
  }
}

/** `2h10m, $0.12, ended its turn`; `running` for a live one. */
export function sessionOutcome(e: SessionEntry): string {
  const parts: string[] = [];
  if (e.seconds !== null) parts.push(formatDuration(e.seconds));
  if (e.costUsd !== null) parts.push(money(e.costUsd));
  if (e.apiRetries > 0) parts.push(`${e.apiRetries} API ${e.apiRetries === 1 ? 'retry' : 'retries'}`);
  parts.push(e.end.text);
  return parts.join(', ');
}

/** One entry in words, without its time. */
export function describeEntry(e: TimelineEntry, clock: LocalTime): string {
  switch (e.kind) {
    case 'session':
      return `${started(e)} → ${sessionOutcome(e)}`;
    case 'wait': {
      const resets = e.resetsAt ? `; it resets at ${clock.hm(e.resetsAt)}` : '';
      return `waiting until ${clock.hms(e.until)}: ${e.reason}${resets}`;
    }
    case 'hang':
      return e.stage === 'watched'
        ? `session ${e.session ?? '?'} went silent: ${e.reason}`
        : `session ${e.session ?? '?'} stopped as hung: ${hangWords(e.reason)}`;
    case 'interrupt': {
      const what = e.by === 'end-time' ? 'end time reached, for the synthesis' : e.reason;
      return `session ${e.session ?? '?'} interrupted: ${what}`;
    }
    case 'pause':
      return `paused (${e.reason || 'by user'})`;
    case 'unpause':
      return `pause lifted (${e.reason || 'by user'})`;
    case 'warning':
      return `warning: ${e.text}${e.count && e.count > 1 ? ` (${e.count} times)` : ''}`;
    case 'finish':
      return `${e.outcome}: ${e.reason} (${formatDuration(e.totalSeconds)} in all)`;
  }
}

/** Minutes tell a night's entries apart; a run of a few minutes needs the seconds too. */
export function entryClock(entries: readonly TimelineEntry[], clock: LocalTime): (at: Date) => string {
  const first = entries[0]?.at.getTime() ?? 0;
  const last = entries.at(-1)?.at.getTime() ?? 0;
  return entries.length > 1 && last - first < 30 * 60_000 ? clock.hms : clock.hm;
}

/** `23:15  session 1 started → 2h10m, $0.12, ended its turn`, one per entry. */
export function timelineLines(entries: readonly TimelineEntry[], clock: LocalTime): string[] {
  const time = entryClock(entries, clock);
  return entries.map((e) => `${time(e.at)}  ${describeEntry(e, clock)}`);
}
