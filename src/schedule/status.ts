import * as sched from '../adapters/scheduler.js';
import { readHeartbeat, readScheduleMarker } from '../adapters/supervision.js';
import { formatDuration } from '../core/config/duration.js';
import { scheduleNames, type Backend, type InstalledEntry } from '../core/schedule/cron.js';
import { scheduleMismatch, type Heartbeat, type ScheduleMarker } from '../core/schedule/marker.js';
import { ago } from '../core/status/table.js';
import { isDefaultRoot } from './values.js';

// `overnight schedule status`: which backend holds an entry for the runs root, its interval, the
// last pass, and what is wrong. A schedule is installed when install recorded it (the marker) and
// its entry is there: the same test `status` and `doctor` make.

export interface ScheduleReport {
  runsRoot: string;
  installed: boolean;
  entries: InstalledEntry[];
  marker: ScheduleMarker | null;
  lastPass: Heartbeat | null;
  warnings: string[];
}

export async function scheduleReport(
  root: string,
  only: Backend | undefined,
  env: NodeJS.ProcessEnv,
  now: Date,
  /** How the person runs overnight (`npx overnight` under npx): the hints name what works. */
  cmd = 'overnight',
): Promise<ScheduleReport> {
  const names = scheduleNames(root, isDefaultRoot(root));
  const entries = await sched.findEntries(root, names, env, only);
  const found = readScheduleMarker(root);
  const marker = found && (!only || found.backend === only) ? found : null;
  const beat = readHeartbeat(root);
  const installed = marker !== null && entries.some((e) => e.backend === marker.backend);
  const every = entries.find((e) => e.everySeconds !== null)?.everySeconds ?? marker?.everySeconds ?? null;
  // Only passes the schedule ran count as proof that it fires (an agent's exit starts passes too).
  const scheduledAt = beat?.scheduledAt ?? null;
  const age = scheduledAt ? (now.getTime() - scheduledAt.getTime()) / 1000 : null;
  const warnings: string[] = [];
  if (!installed)
    warnings.push(
      `no schedule is installed for ${root}: nothing restarts crashed runs between exits; ` +
        `run \`${cmd} schedule install\``,
    );
  warnings.push(...scheduleMismatch(root, marker, entries, cmd));
  if (entries.length > 1)
    warnings.push(
      `${entries.map((e) => e.backend).join(' and ')} both run passes for ${root}; ` +
        `\`${cmd} schedule install --backend <one>\` keeps one`,
    );
  if (installed && every !== null && age !== null && age > 2 * every)
    warnings.push(
      `no scheduled pass for ${formatDuration(age)}, more than two intervals: ` +
        `check ${names.log} and \`${cmd} doctor\``,
    );
  if (installed && !scheduledAt)
    warnings.push(
      'no scheduled pass has run yet; ' +
        `check ${names.log} if this lasts more than ${formatDuration(every ?? 300)}`,
    );
  return { runsRoot: root, installed, entries, marker, lastPass: beat, warnings };
}

/** The report for a person: one line each for the root, the entries and the passes, then warnings. */
export function reportLines(r: ScheduleReport, now: Date): string[] {
  const lines = [`runs root: ${r.runsRoot}`];
  if (r.entries.length === 0) lines.push('schedule:  none');
  for (const e of r.entries) {
    const interval = e.everySeconds === null ? '? (entry not recognised)' : formatDuration(e.everySeconds);
    const leftOver = r.marker?.backend === e.backend ? '' : ', left over: not installed';
    lines.push(`schedule:  ${e.backend}, every ${interval} (${e.where}${leftOver})`);
  }
  const beat = r.lastPass;
  if (beat) {
    const details = [
      beat.durationMs !== undefined ? `took ${beat.durationMs} ms` : '',
      beat.runs !== undefined ? `${beat.runs} run${beat.runs === 1 ? '' : 's'}` : '',
      beat.actions !== undefined ? `${beat.actions} action${beat.actions === 1 ? '' : 's'}` : '',
    ].filter(Boolean);
    const more = details.length ? '; ' + details.join(', ') : '';
    lines.push(`last pass: ${ago(beat.at, now)} (${beat.at.toISOString()}${more})`);
  } else {
    lines.push('last pass: never');
  }
  const scheduledAt = beat?.scheduledAt ?? null;
  const lastScheduled = scheduledAt ? `${ago(scheduledAt, now)} (${scheduledAt.toISOString()})` : 'never';
  lines.push(`last scheduled pass: ${lastScheduled}`);
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  return lines;
}
