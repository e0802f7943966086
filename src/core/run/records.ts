import { intIn, saneDate, sessionNumber, textOf, timeOf } from './bounds.js';
import type { ExitRecord, RestartEntry, SessionMode, SessionRecord } from './types.js';

export { specFromDoc, specToDoc } from './spec-doc.js';

// Text formats of the files the supervisor writes, parsed tolerantly and rendered exactly. Read back,
// each is untrusted (the agent may have written it): numbers in range, times in sane years.

const MODES: readonly SessionMode[] = ['initial', 'resume', 'continue', 'retry', 'fix', 'synthesis'];

/** One restart.log line: ISO time, mode, exit status, previous session's uptime, reason; tab-separated. */
export function formatRestart(e: RestartEntry): string {
  const reason = e.reason.replace(/[\t\n]+/g, ' ');
  const uptime = e.uptime === null ? '-' : `${Math.round(e.uptime)}s`;
  return `${e.at.toISOString()}\t${e.mode}\texit=${e.exit ?? '-'}\tuptime=${uptime}\t${reason}\n`;
}

/** Unreadable lines (a torn last line after a crash) are skipped, never fatal. */
export function parseRestartLog(text: string): RestartEntry[] {
  const entries: RestartEntry[] = [];
  for (const line of text.split('\n')) {
    const [at, mode, exit, ...rest] = line.split('\t');
    if (!at || !mode || !exit) continue;
    const time = timeOf(at);
    if (!time || !MODES.includes(mode as SessionMode)) continue;
    const code = /^exit=(\d{1,5})$/.exec(exit);
    const up = rest[0]?.startsWith('uptime=') ? rest.shift() : undefined;
    const seconds = up ? /^uptime=(\d{1,10})s$/.exec(up) : null;
    entries.push({
      at: time,
      mode: mode as SessionMode,
      exit: code ? Number(code[1]) : null,
      uptime: seconds ? Number(seconds[1]) : null,
      reason: textOf(rest.join('\t')) ?? '',
    });
  }
  return entries;
}

/** The wrapper writes `<status> <session> <epoch seconds>`; only the current session's counts. */
export function parseExitRecord(text: string, session: number): ExitRecord | null {
  const m = /^(\d{1,5})\s+(\d{1,9})\s+(\d{1,12})$/.exec(text.trim());
  if (!m || Number(m[2]) !== session) return null;
  const at = saneDate(new Date(Number(m[3]) * 1000));
  return at && { code: Number(m[1]), at };
}

/** The wrapper writes `<pid> <start time>`; the start time is opaque text compared as is. */
export function parsePidRecord(text: string): { pid: number; startTime: string } | null {
  // One space between: `\s+(.+?)\s*$` backtracks on a long run of spaces.
  const t = text.trim();
  const space = t.indexOf(' ');
  if (space < 0 || t.length > 256) return null;
  const pid = /^\d{1,10}$/.test(t.slice(0, space)) ? intIn(Number(t.slice(0, space)), 1, 2 ** 31 - 1) : null;
  const startTime = t.slice(space + 1).trim();
  return pid !== null && startTime !== '' ? { pid, startTime } : null;
}

export function serializeSession(s: SessionRecord): string {
  const fresh = s.fresh ? { fresh: true } : {};
  const forked = s.forked ? { forked: true } : {};
  const deadline = s.deadline ? { deadline: s.deadline.toISOString() } : {};
  const startedAt = s.startedAt.toISOString();
  return JSON.stringify({ n: s.n, mode: s.mode, startedAt, ...fresh, ...forked, ...deadline }) + '\n';
}

export function parseSession(text: string): SessionRecord {
  const v = JSON.parse(text) as {
    n?: unknown;
    mode?: unknown;
    startedAt?: unknown;
    fresh?: unknown;
    forked?: unknown;
    deadline?: unknown;
  };
  if (typeof v !== 'object' || v === null) throw new Error('not a session record');
  const n = sessionNumber(v.n);
  const startedAt = timeOf(v.startedAt);
  if (n === null || !MODES.includes(v.mode as SessionMode) || !startedAt) {
    throw new Error('not a session record');
  }
  const deadline = timeOf(v.deadline);
  const late = deadline ? { deadline } : {};
  const fresh = v.fresh === true ? { fresh: true } : {};
  const forked = v.forked === true ? { forked: true } : {};
  return { n, mode: v.mode as SessionMode, startedAt, ...fresh, ...forked, ...late };
}
