import { permissionModeProblem } from '../agent/args.js';
import { describeProblem, type ConfigProblem } from '../config/settings.js';
import { plural, safeJson } from '../text.js';

// `overnight doctor`: pure evaluators that turn gathered facts into one result per check, and the
// report. The facts are gathered by adapters/doctor-facts; nothing here reads a file or runs a process.
// The checks themselves: core/doctor-binaries (agent, tmux, node), core/doctor-root (runs root,
// schedule), and here the environment ones (credentials, permission mode, config) and the report.

export type CheckStatus = 'ok' | 'warning' | 'problem';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  /** One line saying what to do; absent when there is nothing to do. */
  fix?: string;
}

/** How one short command ended: an exit code, or an error (not found, timed out, not executable). */
export interface CommandRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  error?: string;
}

export function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

/** Why a command run failed, in a few words; null when it exited 0. */
export function runFailure(run: CommandRun): string | null {
  if (run.error) return run.error;
  if (run.exitCode === 0) return null;
  const said = firstLine(run.stderr) || firstLine(run.stdout);
  return `exit ${run.exitCode ?? '?'}${said ? `: ${said.slice(0, 160)}` : ''}`;
}

export interface Where {
  /** Checks run in the schedule entry's environment (`--as-scheduler`). */
  asScheduler: boolean;
}

/** Cron's default PATH: what a schedule entry without its own PATH gets. */
export const SCHEDULER_DEFAULT_PATH = '/usr/bin:/bin';

/**
 * The environment a schedule entry gives a pass, like `env -i`: the PATH the entry sets (else cron's
 * default), the account's identity and home, OVERNIGHT_HOME when set, and any variables the entry sets.
 */
export function schedulerEnv(
  env: Record<string, string | undefined>,
  entry: { path?: string; env?: Record<string, string> } = {},
): Record<string, string> {
  const out: Record<string, string> = { PATH: entry.path || SCHEDULER_DEFAULT_PATH };
  const user = env.USER || env.LOGNAME;
  if (env.HOME) out.HOME = env.HOME;
  if (user) {
    out.USER = user;
    out.LOGNAME = env.LOGNAME || user;
  }
  if (env.OVERNIGHT_HOME) out.OVERNIGHT_HOME = env.OVERNIGHT_HOME;
  return { ...out, ...entry.env };
}

const TOKENS = ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'];
const CLOUDS: readonly [string, string][] = [
  ['CLAUDE_CODE_USE_BEDROCK', 'Amazon Bedrock'],
  ['CLAUDE_CODE_USE_VERTEX', 'Google Vertex AI'],
  ['CLAUDE_CODE_USE_FOUNDRY', 'Microsoft Foundry'],
];

function credentialIn(env: Record<string, string | undefined>): string | null {
  const token = TOKENS.find((n) => (env[n] ?? '').trim() !== '');
  if (token) return `${token} is set`;
  const cloud = CLOUDS.find(([n]) => env[n] === '1' || env[n] === 'true');
  return cloud ? `${cloud[0]} is set: ${cloud[1]} credentials are not checked here` : null;
}

/**
 * Runs keep the environment they were launched with, restarts included, so the launching shell's
 * variables count; with --as-scheduler, the scheduler's own environment is checked first.
 */
export function checkCredentials(
  env: Record<string, string | undefined>,
  where: Where,
  launchEnv?: Record<string, string | undefined>,
): CheckResult {
  const name = 'credentials';
  const here = credentialIn(env);
  if (here)
    return {
      name,
      status: 'ok',
      detail: `${here}${where.asScheduler ? " in the scheduler's environment" : ''}`,
    };
  const launched = where.asScheduler && launchEnv ? credentialIn(launchEnv) : null;
  if (launched)
    return {
      name,
      status: 'ok',
      detail:
        `${launched} in this shell, not in the scheduler's environment: ` +
        'runs launched from here keep it, restarts included',
    };
  const searched = where.asScheduler ? " in the scheduler's environment or this shell" : '';
  return {
    name,
    status: 'warning',
    detail:
      `neither ANTHROPIC_API_KEY nor CLAUDE_CODE_OAUTH_TOKEN is set${searched}: ` +
      'a login kept in the keychain or by /login often fails under launchd or cron ("Not logged in")',
    fix:
      'run `claude setup-token` and export the token as CLAUDE_CODE_OAUTH_TOKEN (or ANTHROPIC_API_KEY) ' +
      'in the shell you launch from',
  };
}

export function checkPermissionMode(
  mode: string,
  isRoot: boolean,
  env: Record<string, string | undefined>,
): CheckResult {
  const name = 'permissions';
  const problem = permissionModeProblem(mode, isRoot, env);
  if (problem) {
    return {
      name,
      status: 'problem',
      detail: problem.split(';')[0] as string,
      fix:
        'set permission_mode: acceptEdits in config.yaml (or OVERNIGHT_PERMISSION_MODE), ' +
        'or export IS_SANDBOX=1 if this machine is a disposable sandbox',
    };
  }
  if (mode === 'default' || mode === 'plan') {
    const why =
      mode === 'plan'
        ? 'the agent cannot write its findings'
        : 'in print mode every tool call that needs approval is denied silently';
    return {
      name,
      status: 'warning',
      detail: `permission_mode ${mode}: ${why}`,
      fix: 'set permission_mode: acceptEdits in config.yaml, and allowed_tools for what it may run',
    };
  }
  const asRoot = isRoot && mode === 'bypassPermissions' ? ' (as root, with IS_SANDBOX=1)' : '';
  return { name, status: 'ok', detail: `permission_mode ${mode}${asRoot}` };
}

/** Whether a night may bill paid extra usage once the subscription window is spent: said either way. */
export function checkExtraUsage(allowOverage: boolean): CheckResult {
  const name = 'extra usage';
  if (allowOverage)
    return {
      name,
      status: 'ok',
      detail:
        'allow_overage is on: when the subscription window is spent, runs keep working on paid extra ' +
        'usage (status says since when)',
    };
  return {
    name,
    status: 'ok',
    detail:
      'allow_overage is off: a run that would bill paid extra usage is stopped and waits for the ' +
      'window to reset (launch --allow-overage, or allow_overage: true, lets it go on)',
  };
}

export interface ConfigFacts {
  path: string;
  exists: boolean;
  problems: ConfigProblem[];
}

export function checkConfig(f: ConfigFacts): CheckResult {
  const name = 'config';
  if (f.problems.length === 0)
    return {
      name,
      status: 'ok',
      detail: f.exists ? `${f.path} is valid` : `no ${f.path}: defaults and environment`,
    };
  return {
    name,
    status: 'problem',
    detail: f.problems.map(describeProblem).join('; '),
    fix:
      `correct ${f.problems.length === 1 ? 'that value' : 'those values'} ` +
      '(launch refuses them; reconcile falls back to the defaults)',
  };
}

export interface Summary {
  ok: number;
  warnings: number;
  problems: number;
}

export function summarize(results: readonly CheckResult[]): Summary {
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  return { ok: count('ok'), warnings: count('warning'), problems: count('problem') };
}

/** 0 when nothing is a problem (warnings included), 1 otherwise. */
export function doctorExitCode(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === 'problem') ? 1 : 0;
}

/** `--json`: every result as it is, the counts, and the environment the checks ran in. */
export function doctorJson(
  results: readonly CheckResult[],
  where: Where & { env?: Record<string, string> },
): string {
  const out: Record<string, unknown> = { asScheduler: where.asScheduler };
  if (where.asScheduler && where.env) out.environment = shownEnv(where.env);
  return safeJson({ ...out, checks: results, summary: summarize(results) }, 2);
}

/** The scheduler's environment for display: a value that looks like a secret is not shown. */
export function shownEnv(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, /KEY|TOKEN|SECRET|PASSWORD/i.test(k) ? '(set)' : v]),
  );
}

/** One line per check (status, name, detail), the fix indented under it, then a verdict. */
export function renderDoctor(
  results: readonly CheckResult[],
  where: Where & { env?: Record<string, string> },
): string[] {
  const lines: string[] = [];
  if (where.asScheduler && where.env) {
    lines.push(
      `As the scheduler would run it: ${Object.entries(shownEnv(where.env))
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
  }
  const width = Math.max(0, ...results.map((r) => r.name.length));
  for (const r of results) {
    lines.push(`${r.status.padEnd(7)}  ${r.name.padEnd(width)}  ${r.detail}`);
    if (r.fix) lines.push(`${' '.repeat(9 + width + 2)}fix: ${r.fix}`);
  }
  const s = summarize(results);
  if (s.problems > 0)
    lines.push(
      `${plural(s.problems, 'problem')}${s.warnings ? `, ${plural(s.warnings, 'warning')}` : ''}: ` +
        "tonight's runs would break; fix the problems first.",
    );
  else if (s.warnings > 0) lines.push(`No problems, ${plural(s.warnings, 'warning')}.`);
  else lines.push('Everything a night needs is in place.');
  return lines;
}
