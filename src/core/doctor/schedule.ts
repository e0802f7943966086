import { dirname } from 'node:path';

import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import type { Backend } from '../schedule/cron.js';
import { noSchedulerFix, schedulerHere, WITHOUT_SCHEDULE, type SchedulersHere } from '../schedule/here.js';
import { parseHeartbeat, parseScheduleMarker, scheduleMismatch } from '../schedule/marker.js';
import { passFailure, passFailureFix } from '../status/supervision.js';
import type { CheckResult } from './checks.js';

// Doctor's check of the schedule, from its marker and the heartbeat kept in the runs root.

export interface ScheduleFacts {
  /** The marker file's path, and its JSON: undefined when absent, an error string when unreadable. */
  markerPath: string;
  marker: unknown;
  markerError?: string;
  heartbeat: unknown;
  /** The entries found in cron, launchd and systemd for this root, when they were looked for. */
  entries?: { backend: Backend; where: string }[];
  /** The schedulers this machine offers, looked for when none is installed. */
  here?: SchedulersHere;
}

const BACKEND_HINT: Record<string, string> = {
  cron: 'is the cron daemon running?',
  launchd: 'see `launchctl print gui/$(id -u)` for the job',
  systemd:
    'see `systemctl --user list-timers`; `loginctl enable-linger` keeps it running while you are logged out',
};

/** `cmd`: how the person runs overnight (`npx overnight` under npx), for the fixes. */
export function checkSchedule(f: ScheduleFacts, now: Date, cmd = 'overnight'): CheckResult {
  const name = 'schedule';
  const install = `${cmd} schedule install`;
  const last = parseHeartbeat(f.heartbeat)?.scheduledAt ?? null;
  const age = (d: Date) => Math.max(0, (now.getTime() - d.getTime()) / 1000);
  const lastText = last
    ? `the last scheduled pass ran ${formatDuration(age(last))} ago`
    : 'no scheduled pass has run';
  if (f.markerError)
    return {
      name,
      status: 'problem',
      detail: `${f.markerPath} cannot be read (${f.markerError})`,
      fix: `run \`${install}\` again`,
    };
  // The same words as `schedule status`: an entry no install recorded, or a marker without its entry.
  const mismatch = f.entries
    ? scheduleMismatch(dirname(f.markerPath), parseScheduleMarker(f.marker), f.entries, cmd)
    : [];
  if (f.marker === undefined && mismatch.length > 0)
    return {
      name,
      status: 'warning',
      detail: `no schedule installed: ${mismatch.join('; ')}`,
      fix: install,
    };
  if (f.marker === undefined) {
    const none = f.here !== undefined && schedulerHere(f.here) === null;
    const what = none
      ? 'no schedule installed, and no scheduler here (no crontab, no systemd user manager)'
      : 'no schedule installed';
    return {
      name,
      status: 'warning',
      detail: `${what}: ${WITHOUT_SCHEDULE}`,
      fix: none ? noSchedulerFix(cmd) : install,
    };
  }
  const entry = parseScheduleMarker(f.marker);
  if (!entry)
    return {
      name,
      status: 'problem',
      detail: `${f.markerPath} is not a schedule marker (backend, everySeconds)`,
      fix: `run \`${install}\` again`,
    };
  if (mismatch.length > 0) return { name, status: 'problem', detail: mismatch.join('; '), fix: install };
  const every = `${entry.backend} every ${formatDuration(entry.everySeconds)}`;
  const limit = 2 * entry.everySeconds;
  const hint = BACKEND_HINT[entry.backend];
  const fix =
    `check \`${cmd} schedule status\` and reconcile's log in the runs root${hint ? `; ${hint}` : ''}` +
    `; or run \`${install}\` again`;
  if (last) {
    if (age(last) > limit)
      return { name, status: 'problem', detail: `${every}, but ${lastText} (more than two intervals)`, fix };
    return { name, status: 'ok', detail: `${every}; ${lastText}` };
  }
  if (entry.installedAt && age(entry.installedAt) > limit) {
    const installedAgo = formatDuration(age(entry.installedAt));
    return {
      name,
      status: 'problem',
      detail: `${every}, installed ${installedAgo} ago, but no scheduled pass has run`,
      fix,
    };
  }
  const whenInstalled = entry.installedAt ? ` ${formatDuration(age(entry.installedAt))} ago` : '';
  return {
    name,
    status: 'ok',
    detail: `${every}; installed${whenInstalled}, the first pass is still to come`,
  };
}

/** Whether the last pass went through: a failing one (a full disk) supervises nothing. */
export function checkPasses(heartbeat: unknown, root: string, now: Date, clock: LocalTime): CheckResult {
  const name = 'passes';
  const beat = parseHeartbeat(heartbeat);
  const failure = passFailure(beat, clock);
  if (beat?.lastError && failure)
    return { name, status: 'problem', detail: failure, fix: passFailureFix(beat.lastErrno, root) };
  if (!beat) return { name, status: 'ok', detail: 'no reconcile pass has run yet' };
  const ago = formatDuration(Math.max(0, (now.getTime() - beat.at.getTime()) / 1000));
  return { name, status: 'ok', detail: `the last reconcile pass went through ${ago} ago` };
}
