import type { Io } from '../app/io.js';
import { nightWarnings } from '../app/night-warnings.js';
import { printStarted } from '../app/started.js';
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
  taskFile?: string;
  repo?: string;
  base?: string;
  branch?: string;
  allowedTools?: string[];
  permissionMode?: string;
  backend?: string;
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
  // The run keeps this environment all night: say now if it holds no credential meant for unattended use.
  const night = nightWarnings(io, root, now);
  const repo = spec.repo
    ? [
        `  repo:      ${spec.repo.path}`,
        `  branch:    ${spec.repo.branch} (from ${spec.repo.base.slice(0, 12)})`,
        `  worktree:  ${spec.repo.worktree} (the agent works here)`,
      ]
    : [];
  return printStarted(io, {
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
}
