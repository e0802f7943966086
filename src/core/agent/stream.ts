// The agent's stream-json output, read back into one record per session. Pure: text in, records out.
// Tolerant: a torn last line, unknown event types and non-JSON lines (a crash trace) are skipped.
import { SESSION_MAX, sessionNumber, wordOf } from '../run/bounds.js';
import { readRateLimit, timestampOf, type RateLimit, type UsageWindow } from './rate-limit.js';
import { retried, type RetryStreak } from './retry.js';

export type { RateLimit, UsageWindow };

export interface SessionResult {
  /** The conversation the result belongs to. */
  sessionId: string | null;
  subtype: string;
  isError: boolean;
  apiErrorStatus: number | null;
  /** The API error's type (`rate_limit_error`, `overloaded_error`, `api_error`, …), when the CLI says. */
  apiErrorType: string | null;
  /** The CLI's typed cause (`usage_limit_reached`, …), when it says. */
  apiError: string | null;
  text: string;
  numTurns: number | null;
  durationMs: number | null;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** Tool names of the calls the permission mode denied. */
  denied: string[];
  /** Why the CLI ended its loop (`completed`, `blocking_limit`, `api_error`, …), when it says. */
  terminalReason: string | null;
  /** A known failure to start (`sandbox_required_unavailable`, …): no turn was taken. */
  startupFailure: string | null;
}

export interface SessionLog {
  /** From overnight's own marker line; null for output written before any marker. */
  n: number | null;
  mode: string | null;
  /** The conversation overnight started or resumed (from its marker), when recorded. */
  expected: string | null;
  sessionId: string | null;
  model: string | null;
  result: SessionResult | null;
  rateLimit: RateLimit | null;
  /** When the session went on paid extra usage (it still is, per its latest rate_limit_event). */
  overageSince: Date | null;
  /** The 5-hour and weekly windows' utilization, from the session's latest events that carry it. */
  windows: { fiveHour: UsageWindow | null; sevenDay: UsageWindow | null };
  /** The session's start (overnight's marker), and its newest event time: when things happened. */
  startedAt: Date | null;
  lastEventAt: Date | null;
  apiRetries: number;
  /** The API retries since the model last answered: a storm while it lasts, null once it answers. */
  retrying: RetryStreak | null;
  toolCalls: number;
  /** Assistant events: any output of the model at all. */
  assistantEvents: number;
  /**
   * The CLI's typed cause of the error message it ended on (an assistant event's top-level
   * `error`: `authentication_failed`, `account_on_hold`, `max_output_tokens`, …); null once the
   * model answered after it.
   */
  errorType: string | null;
  /** The last few lines that were not stream-json (stack traces, CLI errors printed as text). */
  otherLines: string[];
  /** A follow-up's first session: what its conversation had cost before it was resumed into this run. */
  inheritedCostUsd: number;
}

const KEEP_OTHER = 5;

export function emptySession(
  n: number | null,
  mode: string | null,
  expected: string | null = null,
): SessionLog {
  return {
    n,
    mode,
    expected,
    sessionId: null,
    model: null,
    result: null,
    rateLimit: null,
    overageSince: null,
    windows: { fiveHour: null, sevenDay: null },
    startedAt: null,
    lastEventAt: null,
    apiRetries: 0,
    retrying: null,
    toolCalls: 0,
    assistantEvents: 0,
    errorType: null,
    otherLines: [],
    inheritedCostUsd: 0,
  };
}

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** A code word of the CLI's (`[a-z_]`, short): anything else is no code. */
const word = (v: unknown): string | null =>
  typeof v === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(v) ? v : null;

export function parseResult(e: Record<string, unknown>): SessionResult {
  const usage = (e.usage ?? {}) as Record<string, unknown>;
  const denials = Array.isArray(e.permission_denials) ? e.permission_denials : [];
  const errors = Array.isArray(e.errors) ? e.errors.filter((x) => typeof x === 'string') : [];
  return {
    sessionId: str(e.session_id),
    subtype: str(e.subtype) ?? 'unknown',
    isError: e.is_error === true,
    apiErrorStatus: num(e.api_error_status),
    apiErrorType: str(e.api_error_type),
    apiError: str(e.api_error),
    text: str(e.result) ?? errors.join('; '),
    numTurns: num(e.num_turns),
    durationMs: num(e.duration_ms),
    costUsd: num(e.total_cost_usd) ?? 0,
    inputTokens:
      (num(usage.input_tokens) ?? 0) +
      (num(usage.cache_read_input_tokens) ?? 0) +
      (num(usage.cache_creation_input_tokens) ?? 0),
    outputTokens: num(usage.output_tokens) ?? 0,
    denied: denials.map((d) => str((d as Record<string, unknown>)?.tool_name) ?? 'unknown'),
    terminalReason: word(e.terminal_reason),
    startupFailure: word(e.startup_failure_reason),
  };
}

/**
 * The event types a line starting with `{` is read for; any other such line changes nothing, so a
 * reader holding the raw bytes may skip it undecoded (`"type":"` then one of these and a quote:
 * ASCII, which UTF-8 decoding keeps byte for byte, so the bytes hold it exactly when the text does).
 */
export const READ_TYPES = ['assistant', 'result', 'system', 'rate_limit_event', 'overnight_session'];

/**
 * Only lines that may be one of these events are parsed; the bulk (assistant text, tool results,
 * deltas) is skipped. Key order is the CLI's choice (a result line may start with any field), so
 * the whole line is searched; an escaped quote inside text never matches. JSON.parse decides.
 */
const WANTED = READ_TYPES.filter((t) => t !== 'assistant').map((t) => `"type":"${t}"`);

const wanted = (line: string) =>
  WANTED.some((w) => line.includes(w)) ||
  ((line.includes('"tool_use"') || line.includes('"error":"')) && line.includes('"type":"assistant"'));

/**
 * The stream read so far: one record per session. A plain JSON value (its Dates aside, which
 * `reviveDatesIn` restores), so a reader can keep it on disk and fold in only what is new.
 */
export interface StreamState {
  sessions: SessionLog[];
}

export function newStream(): StreamState {
  return { sessions: [] };
}

/** The session output belongs to; output before any marker forms one of its own. */
export function currentSession(state: StreamState): SessionLog {
  let s = state.sessions.at(-1);
  if (!s) state.sessions.push((s = emptySession(null, null)));
  return s;
}

/** A line that is not stream-json (a stack trace, a CLI error printed as text): the last few are kept. */
export function feedOtherLine(state: StreamState, line: string): void {
  const s = currentSession(state);
  s.otherLines.push(line.slice(0, 500));
  if (s.otherLines.length > KEEP_OTHER) s.otherLines.shift();
}

/** An assistant event: any output of the model, and when it came (`text` is the line or its ends). */
export function feedAssistant(state: StreamState, ...text: string[]): void {
  const s = currentSession(state);
  s.assistantEvents++;
  s.retrying = null;
  s.errorType = null;
  const at = text.reduceRight<Date | null>((found, part) => found ?? timestampOf(part), null);
  s.lastEventAt = at ?? s.lastEventAt;
}

/** Folds one line of output.log (without its newline) into the state. */
export function feedLine(state: StreamState, line: string): void {
  if (line.trim() === '') return;
  if (!line.startsWith('{')) return feedOtherLine(state, line);
  if (line.includes('"type":"assistant"')) feedAssistant(state, line);
  if (!wanted(line)) return;
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return; // a torn line
  }
  feedEvent(state, e);
}

/** One parsed event: a plain switch over its type, so a new field is one more case. */
export function feedEvent(state: StreamState, e: Record<string, unknown>): void {
  switch (e.type) {
    case 'overnight_session': {
      // More markers than any night has sessions: the rest of the output stays with the last one.
      if (state.sessions.length >= SESSION_MAX) return;
      const s = emptySession(sessionNumber(e.session), wordOf(e.mode), wordOf(e.conversation));
      const at = new Date(str(e.at) ?? '');
      s.startedAt = Number.isNaN(at.getTime()) ? null : at;
      s.inheritedCostUsd = num(e.inheritedCostUsd) ?? 0;
      state.sessions.push(s);
      return;
    }
    case 'system': {
      const s = currentSession(state);
      if (e.subtype === 'init') {
        s.sessionId = str(e.session_id);
        s.model = str(e.model);
      } else if (e.subtype === 'api_retry') {
        s.apiRetries++;
        s.retrying = retried(s.retrying, e);
      }
      return;
    }
    case 'rate_limit_event':
      readRateLimit(currentSession(state), e);
      return;
    case 'result': {
      const s = currentSession(state);
      s.result = parseResult(e);
      s.retrying = null;
      return;
    }
    case 'assistant': {
      const content = (e.message as { content?: { type?: string }[] } | undefined)?.content ?? [];
      const s = currentSession(state);
      s.toolCalls += content.filter((b) => b?.type === 'tool_use').length;
      // A synthetic message wrapping an API error names its cause (its line was counted just before).
      s.errorType = str(e.error) ?? s.errorType;
      return;
    }
  }
}

/** Every session of a whole log held in memory (tests, small logs); readers of a run use the index. */
export function parseStream(text: string): SessionLog[] {
  const state = newStream();
  for (const line of text.split('\n')) feedLine(state, line);
  return state.sessions;
}
