import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import type { Heartbeat, ScheduleMarker } from '../schedule/marker.js';

// Whether anything will supervise the live runs tonight: said on the dashboard and at launch.

/**
 * The line the dashboard must not leave out: live runs that nothing will restart, or a schedule
 * that has stopped firing (no pass for more than two intervals). Null when all is well.
 */
export function supervisionWarning(
  schedule: Pick<ScheduleMarker, 'backend' | 'everySeconds'> | null,
  lastPassAt: Date | null,
  liveRuns: number,
  now: Date,
  cmd = 'overnight',
): string | null {
  if (liveRuns === 0) return null;
  // The end timer still ends the night on time; only restarts after a crash need the schedule.
  if (!schedule) {
    const runs = liveRuns === 1 ? 'the run' : 'these runs';
    return (
      `warning: no schedule is installed: ${runs} will not be restarted after a crash. ` +
      `Run \`${cmd} schedule install\`.`
    );
  }
  const every = `${schedule.backend} every ${formatDuration(schedule.everySeconds)}`;
  const check = `Check \`${cmd} schedule status\` and \`${cmd} doctor\`.`;
  if (!lastPassAt) return `warning: no reconcile pass has run yet (${every}). ${check}`;
  const age = (now.getTime() - lastPassAt.getTime()) / 1000;
  if (age > 2 * schedule.everySeconds)
    return `warning: no reconcile pass for ${formatDuration(age)} (${every}). ${check}`;
  return null;
}

/**
 * Passes that fail (a full disk) supervise nothing: said plainly, with since when and why, by
 * status and doctor. Null when the last pass went through.
 */
export function passFailure(beat: Heartbeat | null, clock: LocalTime): string | null {
  if (!beat?.lastError) return null;
  return `passes are failing since ${clock.hm(beat.failingSince ?? beat.at)}: ${beat.lastError}`;
}

/** What the person can do about a failing pass, by its error's code. */
export function passFailureFix(errno: string | undefined, root: string): string {
  if (errno === 'ENOSPC' || errno === 'EDQUOT')
    return `free space on the disk that holds ${root}; runs resume on the next pass, nothing written is lost`;
  return `see ${root}/reconcile.log, and run \`overnight reconcile\` to try a pass now`;
}
