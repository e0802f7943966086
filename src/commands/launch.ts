import { hint, type Io } from '../app/io.js';
import { nightWarnings } from '../app/night-warnings.js';
import { printStarted } from '../app/started.js';
import { formatDuration } from '../core/config/duration.js';
import { WAIT_DEFAULT_S, waitSeconds } from '../core/run/first-seconds.js';
import { runPaths, type RunPaths } from '../core/run/paths.js';
import { safeLine } from '../core/text.js';
import { watchFirstSeconds } from '../runs/first-seconds.js';
import { launchRun } from '../runs/launch.js';
import { readTask } from '../runs/task.js';

export interface LaunchOptions {
  duration?: string;
  until?: string;
  long?: boolean;
  name?: string;
  model?: string;
  maxRestarts?: string;
  maxCost?: string;
  allowOverage?: boolean;
  fallbackModel?: string;
  verify?: string;
  verifyTimeout?: string;
  verifyBudget?: string;
  verifyJunit?: string;
  verifyUnconfined?: boolean;
  review?: boolean;
  reviewBudget?: string;
  reviewModel?: string;
  /** `--no-sandbox` makes this false (commander makes it true when not given: the config decides). */
  sandbox?: boolean;
  sandboxNetwork?: string[];
  taskFile?: string;
  repo?: string;
  base?: string;
  branch?: string;
  allowedTools?: string[];
  permissionMode?: string;
  backend?: string;
  json?: boolean;
  /** `--wait[=<duration>]` (true: the default length), `--no-wait` (false), or neither. */
  wait?: string | boolean;
}

export async function launchCommand(taskWords: string[], opts: LaunchOptions, io: Io): Promise<number> {
  // Checked before anything is made. On a terminal launch watches the first seconds unless told
  // not to; a script (or --json) gets its answer at once unless it asks to wait.
  const wait =
    opts.wait === undefined
      ? io.stdoutIsTty === true && !opts.json
        ? WAIT_DEFAULT_S
        : 0
      : opts.wait === false
        ? 0
        : waitSeconds(opts.wait);
  const task = await readTask({ words: taskWords, taskFile: opts.taskFile }, io);
  const {
    spec,
    root,
    warnings: launchWarnings,
  } = await launchRun(
    {
      ...opts,
      task: task.text,
      allowedTools: opts.allowedTools?.join(','),
      sandboxNetwork: opts.sandboxNetwork?.join(','),
    },
    io,
  );
  const now = io.now();
  // The run keeps this environment all night: say now if it holds no credential meant for unattended use.
  const night = nightWarnings(io, root, now);
  const where = spec.repo?.subdir ? `the agent works in ${spec.repo.subdir}` : 'the agent works here';
  const repo = spec.repo
    ? [
        `  repo:      ${spec.repo.path}`,
        `  branch:    ${spec.repo.branch} (from ${spec.repo.base.slice(0, 12)})`,
        `  worktree:  ${spec.repo.worktree} (${where})`,
      ]
    : [];
  printStarted(io, {
    spec,
    root,
    now,
    json: opts.json,
    fields: { backend: spec.backend },
    title: `Launched ${spec.id}`,
    details: repo,
    night,
    warnings: [...task.warnings, ...launchWarnings, ...night.warnings],
  });
  if (wait === 0) return 0;
  if (!opts.json) io.stdout(`Watching its first ${formatDuration(wait)} (--no-wait to skip)…`);
  return firstSeconds(spec.id, runPaths(root, spec.id), wait, io);
}

/**
 * `--wait`: 1 when the run failed in its first seconds or is about to (a refused login, a blocked
 * account), with the reason on stderr; 0 when it is at work (or already done) then.
 */
async function firstSeconds(id: string, paths: RunPaths, seconds: number, io: Io): Promise<number> {
  const verdict = await watchFirstSeconds(paths, seconds, io.now);
  const within = formatDuration(seconds);
  if (verdict === null) {
    if (!io.stdoutIsTty) return 0;
    io.stdout(`Running: no trouble in its first ${within}.`);
    return 0;
  }
  if (verdict.kind === 'done') {
    io.stdout(safeLine(`Finished already: ${verdict.reason}`));
    return 0;
  }
  const more = hint(io, `status ${id}`);
  if (verdict.kind === 'failed') io.stderr(`${id} failed within ${within}: ${verdict.reason} (${more})`);
  else
    io.stderr(
      `${id} is about to fail: ${verdict.reason}; only you can fix that ` +
        `(${more}; ${hint(io, `stop ${id}`)} ends it)`,
    );
  return 1;
}
