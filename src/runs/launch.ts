import { join } from 'node:path';

import { loadSettings } from '../adapters/config-file.js';
import { cliPath, resolveClaude } from '../adapters/install.js';
import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { overnightSocket } from '../adapters/tmux-socket.js';
import { resolveExecutable } from '../adapters/which.js';
import type { Io } from '../app/io.js';
import { permissionModeProblem } from '../core/agent/args.js';
import { widerGrants } from '../core/agent/grants.js';
import { parseUntil } from '../core/config/duration.js';
import { describeProblem, limitsOf, type Settings } from '../core/config/settings.js';
import { OperationalError, UsageError } from '../core/errors.js';
import { backendProblem, chooseBackend, type BackendName } from '../core/run/backend.js';
import { runId, slugify, uniqueRunId } from '../core/run/naming.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { endTimeProblem } from '../core/run/task.js';
import type { RunSpec } from '../core/run/types.js';
import { SANDBOXED_TOOLS } from '../core/sandbox/choice.js';
import { baselineWarning } from './baseline.js';
import { backendReachable } from './cluster.js';
import { confinementAtLaunch, proveConfinement } from './confinement.js';
import { createRun, idTaken } from './create.js';
import { liveNamesakes } from './namesakes.js';
import { checkBranch, checkRepo } from './repo.js';

// Launching a run: settings checked, the workspace (and a repository run's worktree) made, the
// first session started. Nothing is left behind when any of it fails.

export interface LaunchRequest {
  task: string;
  name?: string;
  duration?: string;
  until?: string;
  /** Allows an end time more than 48 hours away. */
  long?: boolean;
  model?: string;
  maxRestarts?: string;
  maxCost?: string;
  /** Keep working on paid extra usage (--allow-overage). */
  allowOverage?: boolean;
  fallbackModel?: string;
  /** The check the run is verified by, its limits and JUnit file (--verify, --verify-timeout, …). */
  verify?: string;
  verifyTimeout?: string;
  verifyBudget?: string;
  verifyJunit?: string;
  verifyUnconfined?: boolean;
  /** A reviewer after the final check (--review), its budget and model. */
  review?: boolean;
  reviewBudget?: string;
  reviewModel?: string;
  /** false: `--no-sandbox`; anything else leaves it to the config. */
  sandbox?: boolean;
  /** `--sandbox-network`, comma-separated. */
  sandboxNetwork?: string;
  allowedTools?: string;
  permissionMode?: string;
  /** The repository to work on (--repo), and the branch's base and name. */
  repo?: string;
  base?: string;
  branch?: string;
  /** How sessions run (--backend): tmux, detached or slurm. */
  backend?: string;
}

export interface Launch {
  spec: RunSpec;
  /** The runs root it was launched under. */
  root: string;
  warnings: string[];
}

export { cliPath };

export async function launchRun(req: LaunchRequest, io: Io): Promise<Launch> {
  if (req.duration !== undefined && req.until !== undefined)
    throw new UsageError('give --duration or --until, not both');
  if (!req.repo && (req.base !== undefined || req.branch !== undefined))
    throw new UsageError('--base and --branch are for a run on a repository: add --repo <path>');
  if (!req.repo && req.review)
    throw new UsageError(
      "--review reviews a repository run's branch: add --repo <path>, or leave --review out",
    );
  const unusable = req.backend === undefined ? null : backendProblem(req.backend);
  if (unusable) throw new UsageError(`--backend ${req.backend}: ${unusable}`);
  const { settings, problems, chosen } = await loadSettings(
    {
      duration: req.duration,
      model: req.model,
      max_restarts: req.maxRestarts,
      max_cost: req.maxCost,
      allow_overage: req.allowOverage ? 'true' : undefined,
      fallback_model: req.fallbackModel,
      verify: req.verify,
      verify_timeout: req.verifyTimeout,
      verify_budget: req.verifyBudget,
      verify_junit: req.verifyJunit,
      verify_unconfined: req.verifyUnconfined ? 'true' : undefined,
      review: req.review ? 'true' : undefined,
      review_budget: req.reviewBudget,
      review_model: req.reviewModel,
      sandbox: req.sandbox === false ? 'false' : undefined,
      sandbox_network: req.sandboxNetwork,
      allowed_tools: req.allowedTools,
      permission_mode: req.permissionMode,
      backend: req.backend,
    },
    io.env,
  );
  if (problems.length > 0) throw new UsageError(problems.map(describeProblem).join('; '));
  if (settings.fallbackModel !== null && settings.fallbackModel === settings.model)
    throw new UsageError(
      `the fallback model ${JSON.stringify(settings.fallbackModel)} is the run's model too; ` +
        'give --fallback-model (or fallback_model:) another model, such as sonnet when the model is opus',
    );
  const modeProblem = permissionModeProblem(settings.permissionMode, process.getuid?.() === 0, io.env);
  if (modeProblem) throw new UsageError(modeProblem);

  // Checked now, before anything is made; taken again once the lock is held (below).
  endTime(req, settings, io.now());
  const { claude, tmux, backend } = agentTools(settings, io.env);
  await backendReachable(backend, io.env, io.cmd);
  const repoReq = req.repo === undefined ? null : { path: req.repo, base: req.base, branch: req.branch };
  const repo = repoReq ? await checkRepo(repoReq, io.env) : null;
  const warnings = [...(repo?.warnings ?? [])];
  const confined = confinementAtLaunch(settings, io.env);
  warnings.push(...confined.notes);
  // With the sandbox the agent gets Bash (confined) by default; without it, no Bash and no git rule.
  const allowedTools = chosen.includes('allowed_tools')
    ? settings.allowedTools
    : confined.sandbox
      ? SANDBOXED_TOOLS
      : settings.allowedTools;
  warnings.push(...widerGrants(allowedTools, settings.permissionMode, confined.sandbox !== null));

  const root = settings.runsDir;
  usableRunsRoot(root, 'create');
  const twins = req.name === undefined ? [] : await liveNamesakes(root, req.name);
  if (twins.length > 0)
    warnings.push(
      `warning: a live run is already named ${JSON.stringify(req.name)} (${twins.join(', ')}); ` +
        'stop, finish and rm will ask for the id of the one you mean',
    );
  // Proved, not assumed: the run's policy is tried before anything is made.
  await proveConfinement(root, confined, io.env);
  const release = await waitLock(rootPaths(root).lock, 20_000, () => {});
  let spec: RunSpec;
  try {
    // The night starts when its run is made: a wait for a pass to let go is not taken from it.
    const now = io.now();
    const endsAt = endTime(req, settings, now);
    // An id taken by an archived run is taken: archiving must never meet a namesake.
    const id = uniqueRunId(runId(now, slugify(req.name ?? req.task)), idTaken(root));
    const branch = req.branch ?? `overnight/${id}`;
    if (repo) await checkBranch(repo.top, branch, req.branch !== undefined);
    spec = {
      id,
      task: req.task,
      name: req.name ?? null,
      repo: repo && {
        path: repo.top,
        base: repo.base,
        branch,
        worktree: join(rootPaths(root).worktrees, id),
        ...(repo.subdir ? { subdir: repo.subdir } : {}),
      },
      model: settings.model,
      startedAt: now,
      endsAt,
      sessionId: crypto.randomUUID(),
      permissionMode: settings.permissionMode,
      allowedTools,
      limits: limitsOf(settings),
      maxCost: settings.maxCost,
      allowOverage: settings.allowOverage,
      fallbackModel: settings.fallbackModel,
      backend,
      ...(confined.sandbox ? { sandbox: confined.sandbox } : {}),
      // The reviewer reads a branch: a plain run has none, whatever the config says.
      ...(settings.review && repo
        ? { review: { budget: settings.reviewBudget, model: settings.reviewModel } }
        : {}),
      ...(settings.verify
        ? {
            verify: {
              command: settings.verify,
              timeout: settings.verifyTimeout,
              budget: settings.verifyBudget,
              ...(settings.verifyJunit ? { junit: settings.verifyJunit } : {}),
              ...(confined.checkWith === null ? { unconfined: true } : {}),
            },
          }
        : {}),
      paths: {
        claude,
        tmux,
        node: process.execPath,
        cli: cliPath(),
        tmuxSocket: overnightSocket(io.env),
        ...(confined.checkWith ? { bwrap: confined.checkWith } : {}),
      },
    };
    await createRun(root, spec, io, settings);
  } finally {
    await release();
  }
  if (spec.verify && spec.repo) {
    const baseline = await baselineWarning(runPaths(root, spec.id), spec.verify);
    if (baseline) warnings.push(baseline);
  }
  return { spec, root, warnings };
}

/**
 * The agent's and tmux's absolute paths, recorded in run.yaml so that a scheduler's PATH does not
 * matter, and the backend: the one configured, else tmux where it is installed, else detached.
 */
export function agentTools(
  settings: Settings,
  env: NodeJS.ProcessEnv,
): { claude: string; tmux: string | null; backend: BackendName } {
  const claude = resolveClaude(settings.claude, env.PATH);
  if (!claude) {
    throw new OperationalError(
      `the agent binary "${settings.claude}" was not found on PATH; ` +
        'install Claude Code (npm install -g @anthropic-ai/claude-code) ' +
        'or set OVERNIGHT_CLAUDE (or claude: in config.yaml) to its absolute path',
    );
  }
  const tmux = resolveExecutable('tmux', env.PATH);
  const chosen = chooseBackend(settings.backend, tmux !== null);
  if ('error' in chosen) throw new OperationalError(chosen.error);
  if (chosen.backend === 'slurm' && !resolveExecutable('sbatch', env.PATH))
    throw new OperationalError(
      'sbatch was not found on PATH: the slurm backend submits each session with it; install ' +
        "Slurm's client commands (and its slurm.conf), or launch with --backend tmux or detached",
    );
  return { claude, tmux, backend: chosen.backend };
}

/** The end time from --duration (or the configured one) or --until, checked for a typo. */
export function endTime(
  req: Pick<LaunchRequest, 'duration' | 'until' | 'long'>,
  settings: Settings,
  now: Date,
): Date {
  let at: Date;
  if (req.until === undefined) at = new Date(now.getTime() + settings.duration * 1000);
  else {
    const parsed = parseUntil(req.until, now);
    if (!parsed)
      throw new UsageError(
        `--until ${JSON.stringify(req.until)} is not a time; ` +
          'give HH:MM (the next such local time) or ISO 8601 such as 2026-11-22T07:00',
      );
    if (parsed.getTime() <= now.getTime())
      throw new UsageError(`--until ${JSON.stringify(req.until)} is in the past; give a later time`);
    at = parsed;
  }
  // The guard is for what is typed tonight; a long duration in config.yaml was chosen at leisure.
  const given =
    req.until !== undefined
      ? `--until ${req.until}`
      : req.duration !== undefined
        ? `--duration ${req.duration}`
        : null;
  const problem = given && endTimeProblem((at.getTime() - now.getTime()) / 1000, !!req.long, given);
  if (problem) throw new UsageError(problem);
  return at;
}
