import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { captureEnvironment, startSession } from '../adapters/agent.js';
import { loadSettings } from '../adapters/config-file.js';
import { exists, writeFileAtomic } from '../adapters/files.js';
import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { writeSpec } from '../adapters/store.js';
import { readSupervision } from '../adapters/supervision.js';
import { overnightSocket } from '../adapters/tmux-socket.js';
import { resolveExecutable } from '../adapters/which.js';
import type { Io } from '../app/io.js';
import { permissionModeProblem } from '../core/agent/args.js';
import { humanTime, QUESTIONS_HEADER, renderClaudeMd } from '../core/agent/briefing.js';
import { formatDuration, parseUntil } from '../core/config/duration.js';
import { describeProblem, limitsOf, type Settings } from '../core/config/settings.js';
import { checkCredentials } from '../core/doctor/checks.js';
import { OperationalError, UsageError } from '../core/errors.js';
import { attachCommand, runId, slugify, tmuxSessionName, uniqueRunId } from '../core/run/naming.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import { describeFsError } from '../core/run/runs-root.js';
import type { RunSpec } from '../core/run/types.js';
import { supervisionWarning } from '../core/status/supervision.js';
import { safeLine, safeText } from '../core/text.js';

export interface LaunchOptions {
  duration?: string;
  until?: string;
  name?: string;
  model?: string;
  maxRestarts?: string;
  maxCost?: string;
  allowOverage?: boolean;
  fallbackModel?: string;
  json?: boolean;
}

const CLI_PATH = fileURLToPath(new URL('../bin/overnight.js', import.meta.url));

export async function launchCommand(taskWords: string[], opts: LaunchOptions, io: Io): Promise<number> {
  const task = taskWords.join(' ');
  if (task.trim() === '')
    throw new UsageError(
      'the task is empty; say what the agent should do: overnight launch "Survey CRDT libraries"',
    );
  if (opts.duration !== undefined && opts.until !== undefined)
    throw new UsageError('give --duration or --until, not both');

  const { settings, problems } = await loadSettings(
    {
      duration: opts.duration,
      model: opts.model,
      max_restarts: opts.maxRestarts,
      max_cost: opts.maxCost,
      allow_overage: opts.allowOverage ? 'true' : undefined,
      fallback_model: opts.fallbackModel,
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

  const now = io.now();
  const endsAt = endTime(opts.until, settings, now);
  const claude = resolveExecutable(settings.claude, io.env.PATH);
  if (!claude) {
    throw new OperationalError(
      `the agent binary "${settings.claude}" was not found on PATH; ` +
        'install Claude Code (npm install -g @anthropic-ai/claude-code) ' +
        'or set OVERNIGHT_CLAUDE (or claude: in config.yaml) to its absolute path',
    );
  }
  const tmux = resolveExecutable('tmux', io.env.PATH);
  if (!tmux)
    throw new OperationalError(
      'tmux was not found on PATH; install it (apt-get install tmux, or brew install tmux) and launch again',
    );

  const root = settings.runsDir;
  usableRunsRoot(root, 'create');
  const release = await waitLock(rootPaths(root).lock, 20_000, () => {});
  let spec: RunSpec;
  try {
    const id = uniqueRunId(runId(now, slugify(opts.name ?? task)), (candidate) =>
      exists(join(root, candidate)),
    );
    spec = {
      id,
      task,
      model: settings.model,
      startedAt: now,
      endsAt,
      sessionId: randomUUID(),
      permissionMode: settings.permissionMode,
      allowedTools: settings.allowedTools,
      limits: limitsOf(settings),
      maxCost: settings.maxCost,
      allowOverage: settings.allowOverage,
      fallbackModel: settings.fallbackModel,
      paths: { claude, tmux, node: process.execPath, cli: CLI_PATH, tmuxSocket: overnightSocket(io.env) },
    };
    await createWorkspace(root, spec, io.env);
    const paths = runPaths(root, id);
    try {
      await startSession({ spec, paths, mode: 'initial', previous: null, reason: 'launch', exit: null, now });
    } catch (err) {
      // Nothing was produced yet: a run that never started is removed, not left half made.
      rmSync(paths.workspace, { recursive: true, force: true });
      rmSync(paths.agentEnv, { force: true });
      throw new OperationalError(`could not start the agent: ${(err as Error).message}`);
    }
  } finally {
    await release();
  }

  const paths = runPaths(root, spec.id);
  const session = tmuxSessionName(spec.id);
  const { schedule, lastPassAt } = readSupervision(root);
  const supervision = supervisionWarning(schedule, lastPassAt, 1, now);
  // The run keeps this environment all night: say now if it holds no credential meant for unattended use.
  const credentials = checkCredentials(io.env, { asScheduler: false });
  const warnings = [
    ...(supervision ? [supervision] : []),
    ...(credentials.status === 'ok' ? [] : [`warning: ${credentials.detail}.\n  fix: ${credentials.fix}.`]),
  ];
  if (opts.json) {
    io.stdout(
      JSON.stringify({ id: spec.id, workspace: paths.workspace, session, endsAt: spec.endsAt.toISOString() }),
    );
    for (const w of warnings) io.stderr(w);
    return 0;
  }
  // The runs root comes from a file or the environment: nothing in it reaches the terminal as control.
  const say = (line: string) => io.stdout(safeLine(line));
  say(`Launched ${spec.id}`);
  say(`  workspace: ${paths.workspace}`);
  const remaining = formatDuration((spec.endsAt.getTime() - now.getTime()) / 1000);
  say(`  ends:      ${humanTime(spec.endsAt)} (in ${remaining})`);
  say(`  follow:    overnight logs -f ${spec.id}`);
  say(`  watch:     ${attachCommand(spec.id, spec.paths.tmuxSocket, overnightSocket(io.env))}`);
  say(`  status:    overnight status ${spec.id}`);
  if (!supervision)
    say(`Supervised by ${schedule?.backend ?? 'the schedule'}: \`overnight status\` in the morning.`);
  for (const w of warnings) io.stdout(safeText(w));
  return 0;
}

function endTime(until: string | undefined, settings: Settings, now: Date): Date {
  if (until === undefined) return new Date(now.getTime() + settings.duration * 1000);
  const at = parseUntil(until, now);
  if (!at)
    throw new UsageError(
      `--until ${JSON.stringify(until)} is not a time; ` +
        'give HH:MM (the next such local time) or ISO 8601 such as 2026-11-22T07:00',
    );
  if (at.getTime() <= now.getTime())
    throw new UsageError(`--until ${JSON.stringify(until)} is in the past; give a later time`);
  return at;
}

/** Built in a hidden temp directory and renamed into place, so a failure leaves no half run. */
async function createWorkspace(root: string, spec: RunSpec, env: NodeJS.ProcessEnv): Promise<void> {
  const tmp = join(root, `.launch-${spec.id}-${process.pid}`);
  try {
    mkdirSync(tmp, { mode: 0o700 });
    const p = runPaths(root, spec.id);
    const at = (file: string) => join(tmp, file.slice(p.workspace.length + 1));
    mkdirSync(at(p.findings), { mode: 0o700 });
    mkdirSync(at(p.state), { mode: 0o700 });
    writeFileAtomic(at(p.claudeMd), renderClaudeMd(spec));
    writeFileAtomic(at(p.questions), QUESTIONS_HEADER);
    mkdirSync(dirname(p.agentEnv), { recursive: true, mode: 0o700 });
    writeFileAtomic(p.agentEnv, captureEnvironment(env));
    await writeSpec({ ...p, runYaml: at(p.runYaml), specCache: at(p.specCache) }, spec);
    writeFileAtomic(at(p.outputLog), '');
    writeFileAtomic(at(p.restartLog), '');
    renameSync(tmp, p.workspace);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(runPaths(root, spec.id).agentEnv, { force: true });
    const e = err as NodeJS.ErrnoException;
    const why = e.code ? describeFsError({ code: e.code, path: e.path }) : e.message;
    throw new OperationalError(`could not create the run's workspace under ${root}: ${why}`);
  }
}
