import { readSupervision } from '../adapters/supervision.js';
import { hint, type Io } from '../app/io.js';
import { humanTime } from '../core/agent/briefing.js';
import { formatDuration } from '../core/config/duration.js';
import { checkCredentials } from '../core/doctor/checks.js';
import { tmuxSessionName } from '../core/run/naming.js';
import { runPaths } from '../core/run/paths.js';
import { supervisionWarning } from '../core/status/supervision.js';
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
  taskFile?: string;
  repo?: string;
  base?: string;
  branch?: string;
  allowedTools?: string[];
  permissionMode?: string;
  json?: boolean;
}

export async function launchCommand(taskWords: string[], opts: LaunchOptions, io: Io): Promise<number> {
  const task = await readTask({ words: taskWords, taskFile: opts.taskFile }, io);
  const {
    spec,
    root,
    warnings: launchWarnings,
  } = await launchRun({ ...opts, task: task.text, allowedTools: opts.allowedTools?.join(',') }, io);
  const now = io.now();
  const paths = runPaths(root, spec.id);
  const session = tmuxSessionName(spec.id);
  const { schedule, lastPassAt } = readSupervision(root);
  const supervision = supervisionWarning(schedule, lastPassAt, 1, now, io.cmd);
  // The run keeps this environment all night: say now if it holds no credential meant for unattended use.
  const credentials = checkCredentials(io.env, { asScheduler: false });
  const warnings = [
    ...task.warnings,
    ...launchWarnings,
    ...(supervision ? [supervision] : []),
    ...(credentials.status === 'ok' ? [] : [`warning: ${credentials.detail}.\n  fix: ${credentials.fix}.`]),
  ];
  if (opts.json) {
    const repo = spec.repo && {
      repo: spec.repo.path,
      branch: spec.repo.branch,
      base: spec.repo.base,
      worktree: spec.repo.worktree,
    };
    const out = { id: spec.id, workspace: paths.workspace, session, endsAt: spec.endsAt.toISOString() };
    io.stdout(JSON.stringify({ ...out, ...repo }));
    for (const w of warnings) io.stderr(w);
    return 0;
  }
  io.stdout(`Launched ${spec.id}`);
  io.stdout(`  workspace: ${paths.workspace}`);
  if (spec.repo) {
    io.stdout(`  repo:      ${spec.repo.path}`);
    io.stdout(`  branch:    ${spec.repo.branch} (from ${spec.repo.base.slice(0, 12)})`);
    io.stdout(`  worktree:  ${spec.repo.worktree} (the agent works here)`);
  }
  const remaining = formatDuration((spec.endsAt.getTime() - now.getTime()) / 1000);
  io.stdout(`  ends:      ${humanTime(spec.endsAt)} (in ${remaining})`);
  io.stdout(`  follow:    ${hint(io, `logs -f ${spec.id}`)}`);
  io.stdout(`  watch:     tmux attach -t ${session}`);
  io.stdout(`  status:    ${hint(io, `status ${spec.id}`)}`);
  if (!supervision)
    io.stdout(
      `Supervised by ${schedule?.backend ?? 'the schedule'}: \`${hint(io, 'status')}\` in the morning.`,
    );
  for (const w of warnings) io.stdout(w);
  return 0;
}
