// What the agent's stream says of the subscription's limits: the latest rate_limit_event of a
// session (its state, paid extra usage, since when) and the windows' utilization. Pure.
import type { SessionLog } from './stream.js';

export interface RateLimit {
  status: string;
  resetsAt: Date | null;
  type: string | null;
  /** The CLI is spending paid extra usage: the subscription window is spent, requests go on. */
  usingOverage: boolean;
}

/** How much of a subscription window is used (0..1) and when it resets, as the CLI last said. */
export interface UsageWindow {
  utilization: number;
  resetsAt: Date | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** An ISO time from the event's `timestamp` (assistant and user events carry one), read cheaply. */
export function timestampOf(line: string): Date | null {
  const i = line.lastIndexOf('"timestamp":"');
  if (i < 0) return null;
  const at = new Date(line.slice(i + 13, line.indexOf('"', i + 13)));
  return Number.isNaN(at.getTime()) ? null : at;
}

/** A window's reading from a rate_limit_event's `unifiedWindows` entry, or its top-level fields. */
function windowOf(v: unknown): UsageWindow | null {
  const w = (v ?? {}) as Record<string, unknown>;
  const utilization = num(w.utilization);
  if (utilization === null) return null;
  const resets = num(w.resetsAt);
  return { utilization, resetsAt: resets === null ? null : new Date(resets * 1000) };
}

/** The rate_limit_event's fields a session keeps: its limit state, overage, window readings. */
export function readRateLimit(s: SessionLog, e: Record<string, unknown>): void {
  const info = (e.rate_limit_info ?? {}) as Record<string, unknown>;
  const resets = num(info.resetsAt);
  const usingOverage = info.isUsingOverage === true;
  s.rateLimit = {
    status: str(info.status) ?? 'unknown',
    resetsAt: resets === null ? null : new Date(resets * 1000),
    type: str(info.rateLimitType),
    usingOverage,
  };
  // Sent when the state changes: the response just before it is when overage began.
  if (!usingOverage) s.overageSince = null;
  else s.overageSince ??= s.lastEventAt ?? s.startedAt;
  const windows = (info.unifiedWindows ?? {}) as Record<string, unknown>;
  // Top-level utilization comes with a warning about the window rateLimitType names.
  const top = windowOf(info);
  const type = s.rateLimit.type;
  s.windows = {
    fiveHour: windowOf(windows.five_hour) ?? (type === 'five_hour' ? top : null) ?? s.windows.fiveHour,
    sevenDay: windowOf(windows.seven_day) ?? (type === 'seven_day' ? top : null) ?? s.windows.sevenDay,
  };
}
