import { existsSync } from 'node:fs';

import { configPath, loadSettings } from '../adapters/config-file.js';
import { agentFacts, runsRootFacts, scheduleFacts, tmuxFacts } from '../adapters/doctor-facts.js';
import { sandboxFacts } from '../adapters/sandbox.js';
import { findEntries, schedulersHere } from '../adapters/scheduler.js';
import { slurmFacts } from '../adapters/slurm-doctor.js';
import type { Io } from '../app/io.js';
import { checkBackend } from '../core/doctor/backend.js';
import { checkAgent, checkNodePath } from '../core/doctor/binaries.js';
import {
  checkConfig,
  checkCredentials,
  checkExtraUsage,
  checkPermissionMode,
  doctorExitCode,
  doctorJson,
  renderDoctor,
  schedulerEnv,
  type CheckResult,
} from '../core/doctor/checks.js';
import { checkNotify } from '../core/doctor/notify.js';
import { checkRunsRoot } from '../core/doctor/root.js';
import { checkSandboxes } from '../core/doctor/sandbox.js';
import { checkPasses, checkSchedule } from '../core/doctor/schedule.js';
import { checkSlurm } from '../core/doctor/slurm.js';
import { localTime } from '../core/local-time.js';
import { maskSecrets } from '../core/mask.js';
import { scheduleNames } from '../core/schedule/cron.js';
import { parseScheduleMarker } from '../core/schedule/marker.js';
import { safeLine } from '../core/text.js';
import { notifyFacts } from '../notify/doctor-facts.js';
import { outboxWarnings } from '../read/notify-warnings.js';
import { isDefaultRoot } from '../schedule/values.js';

// `overnight doctor`: what would break tonight, one line per check with its fix. With
// --as-scheduler the checks run in the environment the schedule entry gives a pass (like `env -i`
// with the entry's PATH and variables), so "works in my shell, fails under cron" shows up now.

export interface DoctorOptions {
  json?: boolean;
  asScheduler?: boolean;
}

export async function doctorCommand(opts: DoctorOptions, io: Io): Promise<number> {
  const asScheduler = opts.asScheduler === true;
  const shell = await loadSettings({}, io.env);
  // The marker lives in the runs root the shell knows; the entry it describes sets the scheduler's PATH.
  const shellSchedule = scheduleFacts(shell.settings.runsDir);
  const entry = parseScheduleMarker(shellSchedule.marker);
  const env: Record<string, string | undefined> = asScheduler ? schedulerEnv(io.env, entry ?? {}) : io.env;
  const { settings, problems } = asScheduler ? await loadSettings({}, env) : shell;
  const schedule =
    settings.runsDir === shell.settings.runsDir ? shellSchedule : scheduleFacts(settings.runsDir);
  // The entries themselves, so doctor says what `schedule status` says of a marker without its entry.
  const names = scheduleNames(settings.runsDir, isDefaultRoot(settings.runsDir));
  schedule.entries = await findEntries(settings.runsDir, names, io.env).catch(() => undefined);
  // Without a schedule, its fix names only a scheduler this machine has.
  if (schedule.marker === undefined) schedule.here = await schedulersHere(io.env);

  const where = { asScheduler };
  const interactivePath = io.env.PATH ?? '';
  // Slurm is checked in full (controller, munge, a test job) only when runs use it (backend: slurm).
  const slurmWanted = settings.backend === 'slurm';
  const [agent, tmux, root, slurm] = await Promise.all([
    agentFacts(
      settings.claude,
      env,
      asScheduler ? { command: shell.settings.claude, path: interactivePath } : undefined,
    ),
    tmuxFacts(env, asScheduler ? interactivePath : undefined),
    runsRootFacts(settings.runsDir),
    slurmFacts(env, { wanted: slurmWanted, root: settings.runsDir, slurm: settings.slurm }),
  ]);
  const config = configPath(env);
  const results: CheckResult[] = [
    checkAgent(agent, where),
    checkBackend(settings.backend, tmux, where),
    ...checkSlurm(slurm),
    checkNodePath((asScheduler && entry?.node) || process.execPath),
    checkSchedule(schedule, io.now(), io.cmd),
    checkPasses(schedule.heartbeat, settings.runsDir, io.now(), localTime()),
    // Runs keep the environment they were launched with: IS_SANDBOX and tokens come from this shell.
    checkCredentials(env, where, io.env),
    checkPermissionMode(settings.permissionMode, process.getuid?.() === 0, io.env),
    checkExtraUsage(settings.allowOverage),
    ...checkSandboxes(sandboxFacts(env), settings.sandbox, settings.verifyUnconfined),
    ...checkRunsRoot(root),
    checkConfig({ path: config, exists: existsSync(config), problems }),
    // Passes run the notifiers with their own PATH; `${NAME}` values come from the launching shell.
    ...checkNotify(notifyFacts(settings.notify, env, io.env, process.platform)),
    // Another user's outbox, or deliveries left with no target to send them: nothing is sent.
    ...outboxWarnings(settings.runsDir, settings.notify.length > 0).map((detail): CheckResult => ({
      name: 'outbox',
      status: 'warning',
      detail,
    })),
  ];

  const shown = { asScheduler, env: asScheduler ? (env as Record<string, string>) : undefined };
  // A URL in a detail (a config value, an error) is shown masked.
  if (opts.json) io.stdout(maskSecrets(doctorJson(results, shown)));
  // Details quote the config file and what the agent binary said: nothing in them is obeyed.
  else for (const line of renderDoctor(results, shown)) io.stdout(safeLine(maskSecrets(line)));
  return doctorExitCode(results);
}
