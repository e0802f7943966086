import { formatDuration } from '../config/duration.js';
import { firstLine, HEADLINE_MAX } from '../text.js';

// The task as given at launch: whether it says more than its headline, and the guards against typos.

/** Whether the task says more than its first line. */
export function taskHasMore(task: string): boolean {
  const first = firstLine(task);
  return first !== task.trim() || Array.from(first).length > HEADLINE_MAX;
}

/** Launch's own options, for the guard below (kept equal to the CLI's by a test). */
export const LAUNCH_OPTIONS = [
  '--duration',
  '--until',
  '--long',
  '--name',
  '--model',
  '--max-restarts',
  '--max-cost',
  '--allow-overage',
  '--fallback-model',
  '--verify',
  '--verify-timeout',
  '--verify-budget',
  '--verify-junit',
  '--task-file',
  '--repo',
  '--base',
  '--branch',
  '--allowed-tools',
  '--permission-mode',
  '--backend',
  '--json',
];

/**
 * Words of the task that are launch's own options: they came after `--` (commander takes them as
 * options anywhere else), so they are the task's now, most likely by mistake.
 */
export function optionsInTask(words: readonly string[]): string[] {
  const found = words.map((w) => w.split('=')[0] as string).filter((w) => LAUNCH_OPTIONS.includes(w));
  return [...new Set(found)];
}

/** An end time this far away needs --long: `--duration 99999h` is a typo, not a plan. */
export const LONG_RUN_S = 48 * 3600;
/** Even with --long: a run longer than this is no night's work. */
export const LONGEST_RUN_S = 31 * 24 * 3600;

/** Why this end time is refused, or undefined when it is fine. */
export function endTimeProblem(seconds: number, long: boolean, given: string): string | undefined {
  if (seconds > LONGEST_RUN_S)
    return (
      `${given} is ${formatDuration(seconds)} away; ` +
      `a run may last at most ${formatDuration(LONGEST_RUN_S)}, even with --long`
    );
  if (seconds > LONG_RUN_S && !long)
    return (
      `${given} is ${formatDuration(seconds)} away, more than ${formatDuration(LONG_RUN_S)}; ` +
      'add --long if you mean it'
    );
  return undefined;
}
