import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import type { Heartbeat, ScheduleMarker } from '../schedule/marker.js';

// Whether anything will supervise the live runs tonight: said on the dashboard and at launch.

/**
 * The line the dashboard must not leave out: live runs that nothing will resume after a reboot, or
 * a schedule that has stopped firing (no scheduled pass for more than two intervals, or none since
 * it was installed). `lastScheduledAt`: the last pass the schedule started (an agent's exit and the
 * runs' timers start passes too, which prove nothing of it). Null when all is well.
 */
export function supervisionWarning(
  schedule: Pick<ScheduleMarker, 'backend' | 'everySeconds' | 'installedAt'> | null,
  lastScheduledAt: Date | null,
  liveRuns: number,
  now: Date,
  cmd = 'overnight',
): string | null {
  if (liveRuns === 0) return null;
  // An agent's exit resumes a crash, and each run's timers end its waits and its night on time:
  // what needs the schedule is a reboot, and a hang found before the end time.
  if (!schedule) {
    const runs = liveRuns === 1 ? 'the run' : 'these runs';
    return (
      `warning: no schedule is installed: nothing resumes ${runs} after a reboot, and a hang is ` +
      `found only at the end time. Run \`${cmd} schedule install\`.`
    );
  }
  const every = `${schedule.backend} every ${formatDuration(schedule.everySeconds)}`;
  const check = `Check \`${cmd} schedule status\` and \`${cmd} doctor\`.`;
  const age = (at: Date) => Math.max(0, (now.getTime() - at.getTime()) / 1000);
  const limit = 2 * schedule.everySeconds;
  if (!lastScheduledAt) {
    // Installed a moment ago, its first pass is still to come.
    if (schedule.installedAt && age(schedule.installedAt) <= limit) return null;
    const since = schedule.installedAt
      ? ` since it was installed ${formatDuration(age(schedule.installedAt))} ago`
      : ' yet';
    return `warning: the schedule (${every}) has started no pass${since}. ${check}`;
  }
  if (age(lastScheduledAt) > limit)
    return `warning: no scheduled pass for ${formatDuration(age(lastScheduledAt))} (${every}). ${check}`;
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
