import { rmSync } from 'node:fs';

import { rootPaths } from '../core/run/paths.js';
import { isBackend, type ScheduleFile } from '../core/schedule/cron.js';
import type { ScheduleMarker } from '../core/status/table.js';
import { readText, writeFileAtomic } from './files.js';

// The supervisor's own state in the runs root: the schedule marker `schedule install` writes, and
// the heartbeat every pass writes. Cheap to read (no processes): status and launch use them.

function readJson(path: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readText(path) ?? 'null') as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function readScheduleMarker(root: string): ScheduleFile | null {
  const v = readJson(rootPaths(root).schedule);
  if (!v || typeof v.backend !== 'string' || !isBackend(v.backend) || typeof v.everySeconds !== 'number')
    return null;
  return { ...(v as unknown as ScheduleFile), installedAt: String(v.installedAt ?? '') };
}

export function writeScheduleMarker(root: string, marker: ScheduleFile): void {
  writeFileAtomic(rootPaths(root).schedule, JSON.stringify(marker) + '\n');
}

export function removeScheduleMarker(root: string): void {
  rmSync(rootPaths(root).schedule, { force: true });
}

export interface Heartbeat {
  at: string;
  /** When the installed schedule last ran a pass (passes started otherwise leave it as it was). */
  scheduledAt?: string;
  durationMs?: number;
  runs?: number;
  actions?: number;
}

export function readHeartbeat(root: string): Heartbeat | null {
  const v = readJson(rootPaths(root).heartbeat);
  return v && typeof v.at === 'string' && !Number.isNaN(new Date(v.at).getTime())
    ? (v as unknown as Heartbeat)
    : null;
}

export function readSupervision(root: string): { schedule: ScheduleMarker | null; lastPassAt: Date | null } {
  const marker = readScheduleMarker(root);
  const beat = readHeartbeat(root);
  const scheduled = beat?.scheduledAt ? new Date(beat.scheduledAt) : null;
  return {
    schedule: marker && { backend: marker.backend, everySeconds: marker.everySeconds },
    lastPassAt: scheduled && !Number.isNaN(scheduled.getTime()) ? scheduled : null,
  };
}
