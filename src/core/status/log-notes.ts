import type { LocalTime } from '../local-time.js';
import type { SessionEntry, TimelineEntry } from './timeline-types.js';

// What `logs` says around each session's lines, from the night's story: its header (when it
// started, in local time, and why) and, for a session that ended without a result, how it ended
// and who ended it. Pure.

export interface SessionNote {
  /** `resumed (restart 1/5) after: killed by SIGKILL (exit 137), perhaps out of memory`. */
  why: string;
  /** How it ended, when no result event says so: `interrupted by overnight: …`, `stopped by you: …`. */
  ended: string | null;
}

function why(e: SessionEntry, before: SessionEntry | undefined): string {
  // A session just started may not have its reason recorded yet.
  const said = e.why ? `: ${e.why}` : '';
  switch (e.mode) {
    case 'initial':
      return e.why && e.why !== 'first session' ? `first session${said}` : 'first session';
    case 'resume': {
      const restart = e.restart ? ` (restart ${e.restart.count}/${e.restart.max})` : '';
      const after = before ? ` after: ${before.end.text}` : said;
      return `resumed${restart}${after}${e.fresh ? `, in a fresh conversation (${e.fresh})` : ''}`;
    }
    case 'continue':
      return `continued${said}`;
    case 'retry':
      return `retried${said}`;
    case 'synthesis':
      return `the synthesis${said}`;
    default:
      return `${e.mode}${said}`;
  }
}

/** How a session with no result ended; null when its result says it (or it is still going). */
function ended(e: SessionEntry, byUser: boolean): string | null {
  switch (e.end.kind) {
    case 'stopped':
      return byUser ? `stopped by you: ${e.end.text}` : `interrupted by overnight: ${e.end.text}`;
    case 'error':
    case 'unknown':
      return `no result: ${e.end.text}`;
    default:
      return null;
  }
}

export function sessionNotes(timeline: readonly TimelineEntry[]): Map<number, SessionNote> {
  const notes = new Map<number, SessionNote>();
  const byUser = new Set(
    timeline.flatMap((e) =>
      e.kind === 'interrupt' && e.by === 'user' && e.session !== null ? [e.session] : [],
    ),
  );
  let before: SessionEntry | undefined;
  for (const e of timeline) {
    if (e.kind !== 'session') continue;
    notes.set(e.session, { why: why(e, before), ended: ended(e, byUser.has(e.session)) });
    before = e;
  }
  return notes;
}

/** `── session 2 · Sun 23 Nov 01:25:03 · resumed … ──`; without a story, the mode. */
export function sessionHeader(
  n: unknown,
  mode: unknown,
  at: unknown,
  note: SessionNote | undefined,
  clock: LocalTime,
): string {
  const when = typeof at === 'string' && !Number.isNaN(new Date(at).getTime()) ? new Date(at) : null;
  const time = when ? ` · ${clock.human(when).replace(/, \d\d:\d\d/, `, ${clock.hms(when)}`)}` : '';
  return `── session ${String(n)}${time} · ${note?.why ?? String(mode)} ──`;
}
