// The agent's stream-json output, read back into one record per session. Pure: text in, records out.
// Tolerant: a torn last line, unknown event types and non-JSON lines (a crash trace) are skipped.
import { isApiTrouble } from './api-trouble.js';
import { readRateLimit, timestampOf, type RateLimit, type UsageWindow } from './rate-limit.js';

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
  /** The last few lines that were not stream-json (stack traces, CLI errors printed as text). */
  otherLines: string[];
  /** A follow-up's first session: what its conversation had cost before it was resumed into this run. */
  inheritedCostUsd: number;
}

export interface RetryStreak {
  count: number;
  /** The latest retry's HTTP status and the CLI's word for it (`rate_limit`, `overloaded`, …). */
  status: number | null;
  error: string | null;
  /** What the CLI waited between the tries, in all: how long the storm has lasted, at least. */
  delayMs: number;
  /** The first retry's own time (ISO 8601), when its line carries one; text, as the index keeps it. */
  at: string | null;
}

const KEEP_OTHER = 5;

function emptySession(n: number | null, mode: string | null, expected: string | null = null): SessionLog {
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
    otherLines: [],
    inheritedCostUsd: 0,
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function parseResult(e: Record<string, unknown>): SessionResult {
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
  };
}

/**
 * Only lines that may be one of these events are parsed; the bulk (assistant text, tool results,
 * deltas) is skipped. Key order is the CLI's choice (a result line may start with any field), so
 * the whole line is searched; an escaped quote inside text never matches. JSON.parse decides.
 */
const WANTED = [
  '"type":"result"',
  '"type":"system"',
  '"type":"rate_limit_event"',
  '"type":"overnight_session"',
];

const wanted = (line: string) =>
  WANTED.some((w) => line.includes(w)) ||
  (line.includes('"tool_use"') && line.includes('"type":"assistant"'));

export function parseStream(text: string): SessionLog[] {
  const sessions: SessionLog[] = [];
  let current: SessionLog | null = null;
  const session = () => {
    if (!current) sessions.push((current = emptySession(null, null)));
    return current;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (!line.startsWith('{')) {
      const s = session();
      s.otherLines.push(line.slice(0, 500));
      if (s.otherLines.length > KEEP_OTHER) s.otherLines.shift();
      continue;
    }
    if (line.includes('"type":"assistant"')) {
      const s = session();
      s.assistantEvents++;
      s.lastEventAt = timestampOf(line) ?? s.lastEventAt;
    }
    if (!wanted(line)) continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a torn line
    }
    if (e.type === 'overnight_session') {
      sessions.push((current = emptySession(num(e.session), str(e.mode), str(e.conversation))));
      const at = new Date(str(e.at) ?? '');
      current.startedAt = Number.isNaN(at.getTime()) ? null : at;
      current.inheritedCostUsd = num(e.inheritedCostUsd) ?? 0;
    } else if (e.type === 'system' && e.subtype === 'init') {
      const s = session();
      s.sessionId = str(e.session_id);
      s.model = str(e.model);
    } else if (e.type === 'system' && e.subtype === 'api_retry') {
      const s = session();
      s.apiRetries++;
      s.retrying = retried(s.retrying, e);
    } else if (e.type === 'rate_limit_event') {
      readRateLimit(session(), e);
    } else if (e.type === 'result') {
      session().result = parseResult(e);
      session().retrying = null;
    } else if (e.type === 'assistant') {
      session().retrying = null;
      const content = (e.message as { content?: { type?: string }[] } | undefined)?.content ?? [];
      session().toolCalls += content.filter((b) => b?.type === 'tool_use').length;
    }
  }
  return sessions;
}

function retried(streak: RetryStreak | null, e: Record<string, unknown>): RetryStreak {
  const at = new Date(str(e.timestamp) ?? '');
  return {
    count: (streak?.count ?? 0) + 1,
    status: num(e.error_status) ?? null,
    error: str(e.error),
    delayMs: (streak?.delayMs ?? 0) + (num(e.retry_delay_ms) ?? 0),
    at: streak ? streak.at : Number.isNaN(at.getTime()) ? null : at.toISOString(),
  };
}

/**
 * Sessions whose init names another conversation than the one overnight started or resumed
 * (the run's `sessionId` where the marker does not say): a resume that silently started anew.
 */
export function wrongConversations(
  sessions: readonly SessionLog[],
  sessionId: string,
): { session: number; conversation: string; expected: string }[] {
  return sessions
    .filter(
      (s) => s.n !== null && s.n > 1 && s.sessionId !== null && s.sessionId !== (s.expected ?? sessionId),
    )
    .map((s) => ({
      session: s.n as number,
      conversation: s.sessionId as string,
      expected: s.expected ?? sessionId,
    }));
}

// What a refused credential says, in any case.
const AUTH = new RegExp(
  [
    'not logged in',
    'invalid api key',
    'oauth token has expired',
    'failed to authenticate',
    'authentication_error',
    'authentication failed',
  ].join('|'),
  'i',
);

/** A session that ended because its credentials were refused. */
export function isAuthFailure(result: SessionResult | null): boolean {
  if (!result?.isError) return false;
  return result.apiErrorStatus === 401 || result.apiErrorStatus === 403 || AUTH.test(result.text);
}

/** Sessions in a row, the last included, that ended on an auth failure (none if the last did not). */
export function authFailuresInARow(sessions: readonly SessionLog[]): number {
  let n = 0;
  for (let i = sessions.length - 1; i >= 0 && isAuthFailure((sessions[i] as SessionLog).result); i--) n++;
  return n;
}

/** Resumed sessions at the end of the log that failed without any output of the model. */
export function failedResumesInARow(sessions: readonly SessionLog[]): number {
  let n = 0;
  for (let i = sessions.length - 1; i >= 0; i--) {
    const s = sessions[i] as SessionLog;
    if (s.mode === 'initial' || s.assistantEvents > 0 || (s.result && !s.result.isError)) break;
    // The API failed, not the resume: that proves nothing about the conversation.
    if (isApiTrouble(s.result)) break;
    n++;
  }
  return n;
}

export interface Usage {
  costUsd: number;
  tokens: { input: number; output: number };
  sessions: number;
  permissionDenials: { count: number; tools: { name: string; count: number }[] };
}

/**
 * Totals over a run's sessions, most-denied tools first. A result's total_cost_usd is the running
 * total of its conversation (a resume restores it from the transcript), so the last one of each
 * conversation counts, less what a follow-up's conversation had cost in the run it came from;
 * usage tokens are per session and add up.
 */
export function summarizeUsage(sessions: readonly SessionLog[]): Usage {
  const denied = new Map<string, number>();
  const costByConversation = new Map<string, number>();
  const inherited = new Map<string, number>();
  let input = 0;
  let output = 0;
  sessions.forEach((s, i) => {
    if (s.inheritedCostUsd > 0 && s.expected) inherited.set(s.expected, s.inheritedCostUsd);
    if (!s.result) return;
    costByConversation.set(s.result.sessionId ?? s.sessionId ?? `#${i}`, s.result.costUsd);
    input += s.result.inputTokens;
    output += s.result.outputTokens;
    for (const tool of s.result.denied) denied.set(tool, (denied.get(tool) ?? 0) + 1);
  });
  const costUsd = [...costByConversation].reduce(
    (sum, [conversation, usd]) => sum + Math.max(0, usd - (inherited.get(conversation) ?? 0)),
    0,
  );
  const tools = [...denied]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return {
    costUsd: Math.round(costUsd * 1e6) / 1e6,
    tokens: { input, output },
    sessions: sessions.filter((s) => s.n !== null || s.sessionId !== null).length,
    permissionDenials: { count: tools.reduce((n, t) => n + t.count, 0), tools },
  };
}
