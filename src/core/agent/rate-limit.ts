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

/** The windows `unifiedWindows` may carry, the overage-included weekly one among them. */
const WINDOWS = ['five_hour', 'seven_day', 'seven_day_overage_included'];

/**
 * A window spent while the requests go on: its own status says rejected while the event's does
 * not (the CLI carries on past it, on paid credits or in a grace zone).
 */
function spentWindow(info: Record<string, unknown>): { type: string; resetsAt: number | null } | null {
  if (info.status === 'rejected') return null;
  const windows = (info.unifiedWindows ?? {}) as Record<string, unknown>;
  for (const type of WINDOWS) {
    const w = (windows[type] ?? {}) as Record<string, unknown>;
    if (w.status === 'rejected') return { type, resetsAt: num(w.resetsAt) };
  }
  return null;
}

/**
 * Whether the event says paid credits are being spent, under any of its names: `isUsingOverage`,
 * `overageInUse`, `rateLimitGraceActive` (working on past the limit in a grace zone), or a
 * window whose own status is rejected while requests go on.
 */
export function spendingCredits(info: Record<string, unknown>): boolean {
  return (
    info.isUsingOverage === true ||
    info.overageInUse === true ||
    info.rateLimitGraceActive === true ||
    spentWindow(info) !== null
  );
}

/** The rate_limit_event's fields a session keeps: its limit state, overage, window readings. */
export function readRateLimit(s: SessionLog, e: Record<string, unknown>): void {
  const info = (e.rate_limit_info ?? {}) as Record<string, unknown>;
  const spent = spentWindow(info);
  const resets = num(info.resetsAt) ?? spent?.resetsAt ?? null;
  const usingOverage = spendingCredits(info);
  s.rateLimit = {
    status: str(info.status) ?? 'unknown',
    resetsAt: resets === null ? null : new Date(resets * 1000),
    type: str(info.rateLimitType) ?? spent?.type ?? null,
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
