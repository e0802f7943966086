import { formatDuration } from '../config/duration.js';
import { firstLine, headline, HEADLINE_MAX } from '../text.js';

// The task as given at launch: whether it says more than its headline, and the guards against typos.

/**
 * The task's title: its first line without the marks of a Markdown heading (`# Find the flaky
 * test` → `Find the flaky test`), the way a brief in a file often starts. Linear: no pattern scans
 * a megabyte line from every position.
 */
export function taskTitle(task: string): string {
  const first = firstLine(task);
  const open = /^#{1,6}[ \t]+/.exec(first);
  if (!open) return first;
  let title = first.slice(open[0].length).trimEnd();
  // A closing sequence (`## Title ##`) goes too, when a space sets it apart.
  let end = title.length;
  while (end > 0 && title[end - 1] === '#') end--;
  if (end < title.length && (end === 0 || title[end - 1] === ' ' || title[end - 1] === '\t'))
    title = title.slice(0, end).trimEnd();
  return title || first;
}

/** The task's title on one line for a table or the details, cut at `max` and safe for a terminal. */
export function taskHeadline(task: string, max = HEADLINE_MAX): string {
  return headline(taskTitle(task), max);
}

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
  '--verify-unconfined',
  '--review',
  '--review-budget',
  '--review-model',
  '--no-sandbox',
  '--sandbox-network',
  '--task-file',
  '--repo',
  '--base',
  '--branch',
  '--allowed-tools',
  '--permission-mode',
  '--backend',
  '--wait',
  '--no-wait',
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
