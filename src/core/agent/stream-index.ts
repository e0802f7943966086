import { numberIn, SESSION_MAX, sessionNumber } from '../run/bounds.js';
import {
  currentSession,
  emptySession,
  feedAssistant,
  feedOtherLine,
  parseResult,
  type SessionLog,
  type StreamState,
} from './stream.js';

// What the stream index needs of the reducer besides whole lines: lines too long to hold, and a
// state that survives a round trip through JSON. Pure.

/** Lines longer than this are never held whole (a tool result can be 100 MB): head and tail only. */
export const LINE_CAP = 1024 * 1024;
/** How much of a long line's start and end is kept to judge it. */
export const LONG_HEAD = 64 * 1024;
export const LONG_TAIL = 64 * 1024;

/**
 * What the state looks like: an index written under another shape (a field added to SessionLog,
 * or to a result, or a change of meaning: each bumps the number) is rebuilt from the raw log.
 */
export const STREAM_SHAPE = `4:${Object.keys(emptySession(null, null)).sort().join(',')}`;

const count = (text: string, what: string) => text.split(what).length - 1;

/**
 * A line over LINE_CAP, judged from its head and tail. In stream-json text, quotes inside strings
 * are escaped, so a bare `"type":"…"` is always a key of the event.
 */
export function feedLongLine(state: StreamState, head: string, tail: string): void {
  if (!head.startsWith('{')) return feedOtherLine(state, head);
  const has = (what: string) => head.includes(what) || tail.includes(what);
  if (has('"type":"assistant"')) {
    feedAssistant(state, head, tail);
    const s = currentSession(state);
    s.toolCalls += count(head, '"type":"tool_use"') + count(tail, '"type":"tool_use"');
  } else if (has('"type":"result"')) {
    currentSession(state).result = longResult(head, tail);
  }
}

/** A result whose text is too long to hold: its fields from the ends, its text cut short. */
function longResult(head: string, tail: string) {
  const field = (re: RegExp) => re.exec(head)?.[1] ?? re.exec(tail)?.[1];
  const number = (name: string) => {
    const v = field(new RegExp(`"${name}":(-?[0-9.eE+-]+)`));
    return v === undefined ? undefined : Number(v);
  };
  const usageAt = head.indexOf('"usage":{');
  const usageIn = usageAt >= 0 ? head.slice(usageAt) : tail.slice(Math.max(0, tail.indexOf('"usage":{')));
  const usage: Record<string, number> = {};
  for (const k of [
    'input_tokens',
    'output_tokens',
    'cache_read_input_tokens',
    'cache_creation_input_tokens',
  ]) {
    const m = new RegExp(`"${k}":(\\d+)`).exec(usageIn);
    if (m) usage[k] = Number(m[1]);
  }
  const deniedAt = (head + '\n' + tail).match(/"permission_denials":\[([^\]]*)\]/)?.[1] ?? '';
  return parseResult({
    type: 'result',
    subtype: field(/"subtype":"([^"]*)"/),
    is_error: field(/"is_error":(true|false)/) === 'true',
    api_error_status: number('api_error_status'),
    api_error_type: field(/"api_error_type":"([^"]*)"/),
    api_error: field(/"api_error":"([^"]*)"/),
    terminal_reason: field(/"terminal_reason":"([^"]*)"/),
    startup_failure_reason: field(/"startup_failure_reason":"([^"]*)"/),
    session_id: field(/"session_id":"([^"]*)"/),
    result: longText(head) ?? longText(tail),
    num_turns: number('num_turns'),
    duration_ms: number('duration_ms'),
    total_cost_usd: number('total_cost_usd'),
    usage,
    permission_denials: [...deniedAt.matchAll(/"tool_name":"([^"]*)"/g)].map((m) => ({ tool_name: m[1] })),
  });
}

/** The start of the result text, unescaped as far as it goes, marked as cut. */
function longText(part: string): string | undefined {
  const at = part.indexOf('"result":"');
  if (at < 0) return undefined;
  const raw = part.slice(at + 10, at + 10 + 2000).replace(/\\[^"]?$|\\u[0-9a-fA-F]{0,3}$/, '');
  const end = raw.search(/(?<!\\)"/);
  try {
    return (JSON.parse(`"${end >= 0 ? raw.slice(0, end) : raw}"`) as string) + (end >= 0 ? '' : '…');
  } catch {
    return raw + '…';
  }
}

/** The index file: the state, the offset it covers, and what identifies the log it was read from. */
export interface StreamIndex {
  shape: string;
  dev: number;
  ino: number;
  /** A hash of the log's first `printLen` bytes. */
  printLen: number;
  print: string;
  /** Bytes folded in: whole lines, plus the part read so far of a line over the cap. */
  offset: number;
  /** A line over the cap still being read: where it started, its head, and its last bytes so far. */
  long: { start: number; head: string; tail: string } | null;
  /** Where each session's lines start in the log (for `logs`, which shows the current one). */
  starts: number[];
  state: StreamState;
}

const counter = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * A stored session as the reducer makes it: read back, what loops and sums use is checked (its
 * number, counters, cost); anything else is rebuilt from the log.
 */
function wellFormedSession(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<SessionLog>;
  const cost =
    s.result === null || (typeof s.result === 'object' && numberIn(s.result?.costUsd, 0, 1e9) !== null);
  return (
    (s.n === null || sessionNumber(s.n) !== null) &&
    counter(s.apiRetries) &&
    counter(s.toolCalls) &&
    counter(s.assistantEvents) &&
    numberIn(s.inheritedCostUsd, 0, 1e9) !== null &&
    Array.isArray(s.otherLines) &&
    s.otherLines.length <= 100 &&
    cost
  );
}

/**
 * New bytes worth writing the index back for. Fewer are folded again by the next reader: a save
 * (temp file, rename) costs about what folding 15 KB does, so with passes seconds apart over a
 * slowly growing log, saving every 16 KB costs least; a pass a minute over a working agent's log
 * saves every time.
 */
export const SAVE_AFTER_BYTES = 16 * 1024;

/**
 * Whether a reader writes the index back: always when it made a new one (none was stored, or the
 * stored one was unusable), else once it folded SAVE_AFTER_BYTES beyond what was stored. An index
 * left as it was is still right, only behind: the next reader folds those bytes again.
 */
export function worthSaving(made: boolean, folded: number): boolean {
  return made || folded >= SAVE_AFTER_BYTES;
}

export type IndexVerdict =
  'use' | 'missing' | 'corrupt' | 'other shape' | 'replaced' | 'shrunk' | 'rewritten';

/**
 * Whether a stored index may be extended, or why the log must be read again from its start:
 * gone or unreadable, written under another shape, for another file (device and inode), for a
 * log that is now shorter than what it covers, or whose first bytes changed. `printOf(n)` hashes
 * the log's first n bytes as they are now.
 */
export function judgeIndex(
  stored: unknown,
  log: { dev: number; ino: number; size: number },
  printOf: (length: number) => string,
): IndexVerdict {
  if (stored === null || stored === undefined) return 'missing';
  const idx = stored as Partial<StreamIndex>;
  const wellFormed =
    typeof stored === 'object' &&
    Number.isInteger(idx.offset) &&
    Number.isInteger(idx.printLen) &&
    typeof idx.print === 'string' &&
    Array.isArray(idx.starts) &&
    Array.isArray(idx.state?.sessions) &&
    (idx.printLen as number) <= (idx.offset as number) &&
    idx.starts.length <= SESSION_MAX + 1 &&
    idx.starts.every((s) => Number.isSafeInteger(s) && s >= 0) &&
    (idx.state as StreamState).sessions.length <= SESSION_MAX &&
    (idx.state as StreamState).sessions.every(wellFormedSession);
  if (!wellFormed) return 'corrupt';
  if (idx.shape !== STREAM_SHAPE) return 'other shape';
  if (idx.dev !== log.dev || idx.ino !== log.ino) return 'replaced';
  if ((idx.offset as number) > log.size) return 'shrunk';
  if (printOf(idx.printLen as number) !== idx.print) return 'rewritten';
  return 'use';
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

/** Keys whose values are times: `startedAt`, `resetsAt`, `overageSince`. */
const TIME_KEY = /(At|Since)$/;

/** JSON.parse's reviver for a stored state: ISO times under time keys become Dates again. */
export function reviveDates(key: string, value: unknown): unknown {
  return typeof value === 'string' && TIME_KEY.test(key) && ISO.test(value) ? new Date(value) : value;
}

/** The same, in place, for a value already parsed (cheaper than a reviver over a whole index). */
export function reviveDatesIn<T>(value: T): T {
  if (Array.isArray(value)) {
    for (const v of value) if (v !== null && typeof v === 'object') reviveDatesIn(v);
  } else if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const key in obj) {
      const v = obj[key];
      if (typeof v === 'string') {
        if (TIME_KEY.test(key) && ISO.test(v)) obj[key] = new Date(v);
      } else if (v !== null && typeof v === 'object') {
        reviveDatesIn(v);
      }
    }
  }
  return value;
}

/** A deep copy, for folding a torn last line into a view without touching the stored state. */
export function copyStream(state: StreamState): StreamState {
  return structuredClone(state);
}
