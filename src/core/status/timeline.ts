import { maskSecrets } from '../mask.js';
import { SESSION_MAX } from '../run/bounds.js';
import type { RestartEntry } from '../run/types.js';
import { sessionCosts, sessionEnd } from './session-end.js';
import { endedEarly, FINISHED_EARLY, stoppedAsHung, waitKind } from './timeline-causes.js';
import type { SessionEntry, TimelineEntry, TimelineInput } from './timeline-types.js';

// The night's story as data: what happened to one run, in order, from its records. Pure: records
// in, entries out; times stay values (the printers make clock text).

export type { SessionFacts } from './session-end.js';
export type { SessionEntry, TimelineEntry, TimelineInput } from './timeline-types.js';
export { waitKind } from './timeline-causes.js';

const seconds = (from: Date, to: Date) => Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));

interface Start {
  n: number;
  at: Date;
  mode: string;
  why: string;
  fresh?: string;
}

/** When and why each session started: events first, then the session record, restart.log, launch. */
function starts(input: TimelineInput): Start[] {
  const byN = new Map<number, Start>();
  const early = endedEarly(input);
  for (const e of input.events) {
    if (e.action !== 'start' || e.session === null || byN.has(e.session)) continue;
    const fresh = e.fresh ? { fresh: e.fresh } : {};
    const why = early(e) ? FINISHED_EARLY : e.reason;
    byN.set(e.session, { n: e.session, at: e.at, mode: e.mode ?? 'resume', why, ...fresh });
  }
  const cur = input.current;
  if (cur && !byN.has(cur.n)) byN.set(cur.n, { n: cur.n, at: cur.startedAt, mode: cur.mode, why: '' });
  const logged = input.sessions.map((s) => s.n ?? 0);
  // Bounded whatever the records say: session numbers come from files an agent could write.
  const last = Math.min(SESSION_MAX, Math.max(cur?.n ?? 0, ...logged, ...input.exits.keys(), ...byN.keys()));
  // restart.log has one line per session after the first, in order (used only where events lack it).
  const eventless = input.events.every((e) => e.action !== 'start');
  for (let n = 1; n <= last; n++) {
    if (byN.has(n)) {
      const s = byN.get(n) as Start;
      if (!s.why && n > 1 && eventless) s.why = input.restarts[n - 2]?.reason ?? '';
      continue;
    }
    const mode = input.sessions.find((s) => s.n === n)?.mode;
    if (n === 1) byN.set(1, { n, at: input.startedAt, mode: mode ?? 'initial', why: 'first session' });
    else if (eventless && input.restarts[n - 2]) {
      const r = input.restarts[n - 2] as RestartEntry;
      byN.set(n, { n, at: r.at, mode: r.mode, why: r.reason });
    }
  }
  const first = byN.get(1);
  if (first && !first.why) first.why = 'first session';
  return [...byN.values()].sort((a, b) => a.n - b.n);
}

/** The session that was current at `at`: the last one started at or before it. */
function sessionAt(list: readonly Start[], at: Date): number | null {
  let n: number | null = null;
  for (const s of list) if (s.at.getTime() <= at.getTime()) n = s.n;
  return n;
}

/**
 * The session whose agent was still running at `at`: its exit, if recorded, is not before it (an
 * exit record's time may be the whole second before the event that caused it).
 */
function runningAt(input: TimelineInput, list: readonly Start[], at: Date): number | null {
  const n = sessionAt(list, at);
  const exit = n === null ? undefined : input.exits.get(n);
  return !exit || exit.at.getTime() >= at.getTime() - 1000 ? n : null;
}

type Warning = Extract<TimelineEntry, { kind: 'warning' }>;

/** What the events say besides starts: waits, hangs, interrupts, pauses, warnings. */
function happenings(input: TimelineInput, list: readonly Start[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const early = endedEarly(input);
  const notices = new Map<string, Warning>();
  for (const e of input.events) {
    const session = sessionAt(list, e.at);
    switch (e.action) {
      case 'wait':
        if (e.until) {
          const resets = e.resetsAt ? { resetsAt: e.resetsAt } : {};
          out.push({
            at: e.at,
            kind: 'wait',
            for: waitKind(e.cause),
            until: e.until,
            ...resets,
            reason: e.reason,
          });
        }
        break;
      case 'watch':
        out.push({ at: e.at, kind: 'hang', stage: 'watched', session, reason: e.reason });
        break;
      case 'interrupt':
        if (stoppedAsHung(e))
          out.push({ at: e.at, kind: 'hang', stage: 'stopped', session, reason: e.reason });
        else if (early(e)) {
          const reason = `${FINISHED_EARLY}, for the synthesis`;
          out.push({ at: e.at, kind: 'interrupt', by: 'user', session, reason });
        } else {
          const by = e.cause === 'end-time' ? 'end-time' : 'overnight';
          out.push({ at: e.at, kind: 'interrupt', by, session, reason: e.reason });
        }
        break;
      case 'stop': {
        // Only a stop that found an agent running interrupted anything; the finish says the rest.
        const stopped = runningAt(input, list, e.at);
        const reason = e.reason || 'stopped by user';
        if (stopped !== null) out.push({ at: e.at, kind: 'interrupt', by: 'user', session: stopped, reason });
        break;
      }
      case 'pause':
      case 'resume':
        out.push({ at: e.at, kind: e.action === 'pause' ? 'pause' : 'unpause', reason: e.reason });
        break;
      // A notification that never got through: the morning should know it was not told. Said
      // once, with how many times, however often the same one failed (after every restart).
      case 'notify-failed': {
        const text = maskSecrets(e.reason);
        const said = notices.get(text);
        if (said) said.count = (said.count ?? 1) + 1;
        else {
          const entry: Warning = { at: e.at, kind: 'warning', session: null, text };
          notices.set(text, entry);
          out.push(entry);
        }
        break;
      }
      case 'wrong-conversation':
        out.push({
          at: e.at,
          kind: 'warning',
          session,
          text:
            `session ${session ?? '?'} ran conversation ${e.conversation ?? '?'} ` +
            `instead of resuming ${e.expected ?? '?'}`,
        });
        break;
    }
  }
  return out;
}

/** The finish: the sentinel's outcome and reason, at the time recorded for it. */
function finish(input: TimelineInput, fallback: Date): TimelineEntry | null {
  const s = input.sentinel;
  if (!s) return null;
  const recorded = input.events.find((e) => (e.action === 'finish' || e.action === 'stop') && e.to !== null);
  const at = recorded?.at ?? s.at ?? fallback;
  return {
    at,
    kind: 'finish',
    outcome: s.kind,
    reason: s.reason,
    totalSeconds: seconds(input.startedAt, at),
  };
}

// Entries at the same moment read in the order things happen: what stopped a session, then the next.
const ORDER: Record<TimelineEntry['kind'], number> = {
  hang: 0,
  interrupt: 0,
  warning: 1,
  pause: 1,
  unpause: 1,
  session: 2,
  wait: 3,
  finish: 4,
};

export function buildTimeline(input: TimelineInput): TimelineEntry[] {
  const list = starts(input);
  const others = happenings(input, list);
  const costs = sessionCosts(input.sessions);
  const lastAt = list.at(-1)?.at ?? input.startedAt;
  const done = finish(input, lastAt);
  let resumes = 0;
  const sessions = list.map((s, i): SessionEntry => {
    const next = list[i + 1];
    const stops = others.filter(
      (o) => (o.kind === 'interrupt' || (o.kind === 'hang' && o.stage === 'stopped')) && o.session === s.n,
    );
    const stoppedBy = stops.at(-1) as Extract<TimelineEntry, { kind: 'interrupt' | 'hang' }> | undefined;
    const exit = input.exits.get(s.n) ?? null;
    const running = !exit && !next && input.live;
    const end = sessionEnd({
      exit,
      result: input.sessions.find((f) => f.n === s.n)?.result ?? null,
      running,
      paused: input.paused === true,
      stoppedBy: stoppedBy
        ? {
            kind: stoppedBy.kind,
            reason: stoppedBy.reason,
            atEndTime: stoppedBy.kind === 'interrupt' && stoppedBy.by === 'end-time',
          }
        : null,
    });
    const endedAt = running ? null : (exit?.at ?? stoppedBy?.at ?? next?.at ?? done?.at ?? null);
    if (s.mode === 'resume') resumes++;
    const log = input.sessions.find((f) => f.n === s.n);
    return {
      at: s.at,
      kind: 'session',
      session: s.n,
      mode: s.mode,
      why: s.why,
      ...(s.mode === 'resume' ? { restart: { count: resumes, max: input.maxRestarts } } : {}),
      ...(s.fresh ? { fresh: s.fresh } : {}),
      endedAt,
      seconds: endedAt ? seconds(s.at, endedAt) : null,
      costUsd: costs.get(s.n) ?? null,
      apiRetries: log?.apiRetries ?? 0,
      end,
    };
  });
  const all: TimelineEntry[] = [...sessions, ...others, ...(done ? [done] : [])];
  return all
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at.getTime() - b.e.at.getTime() || ORDER[a.e.kind] - ORDER[b.e.kind] || a.i - b.i)
    .map((x) => x.e);
}
