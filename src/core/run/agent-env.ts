// The environment captured at launch, as the file the wrapper sources before it starts the agent:
// `export NAME='value'` lines, single-quoted, so every value (newlines included) reaches the agent
// exactly and nothing in it is ever evaluated. Pure: text in, text out.

/** The first line of the file; the wrapper sources nothing that does not start with it. */
export const AGENT_ENV_HEADER =
  '# overnight: the environment captured at launch (sh, sourced by the wrapper)';

/**
 * Variables that are not captured: the launching terminal's own, and names a shell keeps
 * read-only or sets itself (exporting them from the file would stop the shell that sources it).
 */
export const NOT_CAPTURED: ReadonlySet<string> = new Set([
  'TMUX',
  'TMUX_PANE',
  'PWD',
  'OLDPWD',
  'SHLVL',
  '_',
  'COLUMNS',
  'LINES',
  'BASHOPTS',
  'BASH_VERSINFO',
  'EUID',
  'PPID',
  'SHELLOPTS',
  'UID',
]);

/** Variables that would point the agent's git at another repository than its worktree. */
export const GIT_ELSEWHERE: readonly string[] = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
];

/**
 * Claude Code's own settings that overnight fixes for the agent, whatever the launching shell had:
 * the CLI's retry watchdog off (with it on, the CLI sleeps through a usage limit itself, up to 6 h
 * a time and silent, where overnight would wait it out, say so and write the report), and
 * CLAUDE_CODE_SUPERVISED=1 (an uncaught exception exits 70, a crash overnight resumes, instead
 * of the CLI going on in an unknown state).
 */
export const CLI_SETTINGS: Readonly<Record<string, string>> = {
  CLAUDE_CODE_RETRY_WATCHDOG: '0',
  CLAUDE_CODE_SUPERVISED: '1',
  // A sandbox that cannot start (or any known startup failure) ends the session with a typed
  // result (`startup_failure_reason`), which the decision reads, instead of only words on stderr.
  CLAUDE_CODE_STARTUP_FAILURE_RESULTS: '1',
};

/** The watchdog's tuning, left out (it only matters with the watchdog on). */
const WATCHDOG_TUNING = /^CLAUDE_CODE_RETRY_WATCHDOG_/;

/**
 * What the captured file holds: the launching environment, plus where the run's files are
 * (OVERNIGHT_RUN_DIR), CLI_SETTINGS and a sandboxed run's temp directory (`tmp`); a repository
 * run's without the variables that would send
 * its git elsewhere.
 */
export function runEnvironment(
  env: Record<string, string | undefined>,
  runDir: string,
  repo: boolean,
  tmp: string | null = null,
): Record<string, string | undefined> {
  const own: Record<string, string | undefined> = { ...env, OVERNIGHT_RUN_DIR: runDir, ...CLI_SETTINGS };
  // A sandboxed run's commands get a temp directory of their own, not one all runs share.
  if (tmp) own.CLAUDE_CODE_TMPDIR = tmp;
  for (const name of Object.keys(own)) if (WATCHDOG_TUNING.test(name)) delete own[name];
  if (repo) for (const name of GIT_ELSEWHERE) delete own[name];
  return own;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** Every variable of `env` that sh can carry: a valid name and no NUL in the value. */
export function renderAgentEnv(env: Record<string, string | undefined>): string {
  const lines = [AGENT_ENV_HEADER];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || NOT_CAPTURED.has(name) || !NAME.test(name) || value.includes('\0')) continue;
    lines.push(`export ${name}=${quote(value)}`);
  }
  return lines.join('\n') + '\n';
}

/** Whether the file is in the format the wrapper sources (else it was written by an older version). */
export function isAgentEnvFile(text: string): boolean {
  return text.startsWith(AGENT_ENV_HEADER + '\n');
}

/**
 * The captured variables. Files written before this format (`NAME=value` lines, values without
 * newlines) are read too, so a run launched by an older version can be migrated.
 */
export function parseAgentEnv(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  if (isAgentEnvFile(text)) {
    for (const m of text.matchAll(/^export ([A-Za-z_][A-Za-z0-9_]*)='((?:[^']|'\\'')*)'$/gm))
      vars.set(m[1] as string, (m[2] as string).replace(/'\\''/g, "'"));
    return vars;
  }
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0 && NAME.test(line.slice(0, i))) vars.set(line.slice(0, i), line.slice(i + 1));
  }
  return vars;
}
