import { overnightSocket } from '../adapters/tmux-socket.js';
import { hint, type Io } from '../app/io.js';
import { nightWarnings } from '../app/night-warnings.js';
import { humanTime } from '../core/agent/briefing.js';
import { formatDuration } from '../core/config/duration.js';
import { WAIT_DEFAULT_S, waitSeconds } from '../core/run/first-seconds.js';
import { attachCommand, tmuxSessionName } from '../core/run/naming.js';
import { runPaths, type RunPaths } from '../core/run/paths.js';
import { safeJson, safeLine, safeText } from '../core/text.js';
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
  } = await launchRun({ ...opts, task: task.text, allowedTools: opts.allowedTools?.join(',') }, io);
  const now = io.now();
  const paths = runPaths(root, spec.id);
  const session = tmuxSessionName(spec.id);
  // The run keeps this environment all night: say now if it holds no credential meant for unattended use.
  const night = nightWarnings(io, root, now);
  const { supervision } = night;
  const warnings = [...task.warnings, ...launchWarnings, ...night.warnings];
  if (opts.json) {
    const repo = spec.repo && {
      repo: spec.repo.path,
      branch: spec.repo.branch,
      base: spec.repo.base,
      worktree: spec.repo.worktree,
      ...(spec.repo.subdir ? { subdir: spec.repo.subdir } : {}),
    };
    const out = {
      id: spec.id,
      workspace: paths.workspace,
      session,
      endsAt: spec.endsAt.toISOString(),
      backend: spec.backend,
    };
    io.stdout(safeJson({ ...out, ...repo }));
    for (const w of warnings) io.stderr(w);
    return wait > 0 ? firstSeconds(spec.id, paths, wait, io) : 0;
  }
  // The runs root and the repository come from a file, the environment or the command line:
  // nothing in them reaches the terminal as control.
  const say = (line: string) => io.stdout(safeLine(line));
  say(`Launched ${spec.id}`);
  say(`  workspace: ${paths.workspace}`);
  if (spec.repo) {
    say(`  repo:      ${spec.repo.path}`);
    say(`  branch:    ${spec.repo.branch} (from ${spec.repo.base.slice(0, 12)})`);
    const where = spec.repo.subdir ? `the agent works in ${spec.repo.subdir}` : 'the agent works here';
    say(`  worktree:  ${spec.repo.worktree} (${where})`);
  }
  const remaining = formatDuration((spec.endsAt.getTime() - now.getTime()) / 1000);
  say(`  ends:      ${humanTime(spec.endsAt)} (in ${remaining})`);
  say(`  follow:    ${hint(io, `logs -f ${spec.id}`)}`);
  // Detached, following the log is the way to watch: said once, not twice.
  if (spec.backend === 'tmux')
    say(`  watch:     ${attachCommand(spec.id, spec.paths.tmuxSocket, overnightSocket(io.env))}`);
  else say(`  backend:   ${spec.backend} (no terminal to attach to; follow the log)`);
  say(`  status:    ${hint(io, `status ${spec.id}`)}`);
  if (!supervision)
    say(`Supervised by ${night.schedule ?? 'the schedule'}: \`${hint(io, 'status')}\` in the morning.`);
  for (const w of warnings) io.stdout(safeText(w));
  if (wait === 0) return 0;
  say(`Watching its first ${formatDuration(wait)} (--no-wait to skip)…`);
  return firstSeconds(spec.id, paths, wait, io);
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
