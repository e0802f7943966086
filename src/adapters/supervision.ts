import { rootPaths } from '../core/paths.js';
import type { ScheduleMarker } from '../core/format.js';
import { readText } from './files.js';

// What the dashboard says about the supervisor itself: the schedule marker and the last pass.

function readJson(path: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readText(path) ?? 'null') as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function readSupervision(root: string): { schedule: ScheduleMarker | null; lastPassAt: Date | null } {
  const rp = rootPaths(root);
  const marker = readJson(rp.schedule);
  const schedule = marker && typeof marker.backend === 'string' && typeof marker.everySeconds === 'number' ? { backend: marker.backend, everySeconds: marker.everySeconds } : null;
  const at = readJson(rp.heartbeat)?.at;
  const lastPassAt = typeof at === 'string' && !Number.isNaN(new Date(at).getTime()) ? new Date(at) : null;
  return { schedule, lastPassAt };
}
