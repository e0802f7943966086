import { isBackend, type Backend } from './cron.js';

// The two records the supervisor keeps in the runs root, each with one type and one parser:
// `.schedule.json`, written by `schedule install`, and `.heartbeat.json`, written by every pass.

/** What `overnight schedule install` records: read by status, launch and doctor instead of cron. */
export interface ScheduleMarker {
  backend: Backend;
  everySeconds: number;
  installedAt: Date | null;
  /** The PATH the entry sets, so `doctor --as-scheduler` can rebuild the scheduler's environment. */
  path?: string;
  /** The node the entry runs (process.execPath at install). */
  node?: string;
  /** Other variables the entry sets (OVERNIGHT_HOME, …). */
  env?: Record<string, string>;
}

const date = (v: unknown): Date | null => {
  const at = typeof v === 'string' ? new Date(v) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
};
const record = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** The marker's JSON, or null when it is not one. */
export function parseScheduleMarker(raw: unknown): ScheduleMarker | null {
  const m = record(raw);
  if (!m || typeof m.backend !== 'string' || !isBackend(m.backend)) return null;
  if (typeof m.everySeconds !== 'number' || !(m.everySeconds > 0)) return null;
  const marker: ScheduleMarker = {
    backend: m.backend,
    everySeconds: m.everySeconds,
    installedAt: date(m.installedAt),
  };
  if (typeof m.path === 'string' && m.path !== '') marker.path = m.path;
  if (typeof m.node === 'string' && m.node !== '') marker.node = m.node;
  const env = record(m.env);
  if (env) {
    const strings = Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string');
    marker.env = Object.fromEntries(strings);
  }
  return marker;
}

/** What every pass leaves in the runs root: when it ran, and what it found. */
export interface Heartbeat {
  at: Date;
  /**
   * When the installed schedule last ran a pass: the only proof that it fires, since an agent's
   * exit starts passes too. Passes started otherwise leave it as it was.
   */
  scheduledAt: Date | null;
  durationMs?: number;
  runs?: number;
  actions?: number;
  /** What made the last pass fail (a full disk, say), in words; absent when it went through. */
  lastError?: string;
  /** Its system error code (`ENOSPC`, …) when it had one: what the fix is chosen by. */
  lastErrno?: string;
  /** When passes began failing, for as long as each one since has failed. */
  failingSince?: Date;
}

/** The heartbeat's JSON, or null when it is not one. */
export function parseHeartbeat(raw: unknown): Heartbeat | null {
  const h = record(raw);
  const at = date(h?.at);
  if (!h || !at) return null;
  const beat: Heartbeat = { at, scheduledAt: date(h.scheduledAt) };
  for (const key of ['durationMs', 'runs', 'actions'] as const) {
    if (typeof h[key] === 'number') beat[key] = h[key];
  }
  if (typeof h.lastError === 'string' && h.lastError !== '') {
    beat.lastError = h.lastError;
    if (typeof h.lastErrno === 'string' && /^E[A-Z]{2,15}$/.test(h.lastErrno)) beat.lastErrno = h.lastErrno;
    beat.failingSince = date(h.failingSince) ?? at;
  }
  return beat;
}

/**
 * Where the marker and the entries found disagree, in words `schedule status` and `doctor` share:
 * a marker whose entry is gone, or an entry no finished install recorded. Empty when they agree.
 */
export function scheduleMismatch(
  root: string,
  marker: Pick<ScheduleMarker, 'backend'> | null,
  entries: readonly { backend: Backend; where: string }[],
  cmd = 'overnight',
): string[] {
  const found: string[] = [];
  if (marker && !entries.some((e) => e.backend === marker.backend))
    found.push(
      `${root}/.schedule.json says ${marker.backend}, but no ${marker.backend} entry was found; ` +
        `run \`${cmd} schedule install\` again`,
    );
  for (const e of entries)
    if (!marker)
      found.push(
        `a ${e.backend} entry (${e.where}) is left over from an install that did not finish; ` +
          `run \`${cmd} schedule install\` again, or \`${cmd} schedule uninstall\``,
      );
  return found;
}
