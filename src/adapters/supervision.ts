import { rmSync } from 'node:fs';

import { rootPaths } from '../core/run/paths.js';
import {
  parseHeartbeat,
  parseScheduleMarker,
  type Heartbeat,
  type ScheduleMarker,
} from '../core/schedule/marker.js';
import { overwriteInPlace, readText, writeFileAtomic } from './files.js';

// The supervisor's own records in the runs root: the schedule marker `schedule install` writes, and
// the heartbeat every pass writes. Cheap to read (no processes): status and launch use them.

function readJson(path: string): unknown {
  try {
    return JSON.parse(readText(path) ?? 'null') as unknown;
  } catch {
    return null;
  }
}

export function readScheduleMarker(root: string): ScheduleMarker | null {
  return parseScheduleMarker(readJson(rootPaths(root).schedule));
}

export function writeScheduleMarker(root: string, marker: ScheduleMarker): void {
  writeFileAtomic(rootPaths(root).schedule, JSON.stringify(marker) + '\n');
}

export function removeScheduleMarker(root: string): void {
  rmSync(rootPaths(root).schedule, { force: true });
}

export function readHeartbeat(root: string): Heartbeat | null {
  return parseHeartbeat(readJson(rootPaths(root).heartbeat));
}

/** The heartbeat's size on disk: room to rewrite it in place when the disk is too full for a new file. */
const HEARTBEAT_BYTES = 1024;

/**
 * Written atomically; when that fails (a full disk), rewritten in place within the blocks it
 * already has, so that status and doctor can still say why passes fail. Never throws.
 */
export function writeHeartbeat(root: string, beat: Heartbeat): void {
  const path = rootPaths(root).heartbeat;
  const json = JSON.stringify({ ...beat, lastError: beat.lastError?.slice(0, 400) });
  const padded = json.padEnd(HEARTBEAT_BYTES - 1, ' ') + '\n';
  try {
    // Rewritten by every pass, a minute apart, and read only to report on passes: no fsync.
    writeFileAtomic(path, padded, 0o600, { durable: false });
  } catch {
    overwriteInPlace(path, padded);
  }
}

/** What status and launch need to warn about unsupervised runs: the schedule and the last pass it started. */
export function readSupervision(root: string): {
  schedule: ScheduleMarker | null;
  lastScheduledAt: Date | null;
} {
  return { schedule: readScheduleMarker(root), lastScheduledAt: readHeartbeat(root)?.scheduledAt ?? null };
}
