import { firstLine, runFailure, type CheckResult, type CommandRun, type Where } from './checks.js';

// Doctor checks of the programs a night depends on: the agent, tmux, and the node the schedule names.

/** Every flag overnight passes to the agent (core/agent-args), with the spellings the CLI accepts. */
export const AGENT_FLAGS: readonly (readonly string[])[] = [
  ['-p', '--print'],
  ['--output-format'],
  ['--verbose'],
  ['--session-id'],
  ['--resume', '-r'],
  ['--model'],
  ['--fallback-model'],
  ['--permission-mode'],
  ['--allowedTools', '--allowed-tools'],
  ['--max-budget-usd'],
  // A repository run's: 2.1.329's --help names the file form only as `--append-system-prompt[-file]`.
  ['--append-system-prompt-file', '--append-system-prompt'],
  ['--add-dir'],
  // A follow-up's (`overnight continue`): the earlier conversation resumed into its own, and a
  // repository follow-up's briefing rendered afresh.
  ['--fork-session'],
  ['--system-prompt-snapshot'],
  // Every session's: the run's sandbox and the file tools' Read rules.
  ['--settings'],
  // The reviewer's (`--review`): its tools, and the shape of its answer.
  ['--tools'],
  ['--json-schema'],
];

const mentions = (text: string, flag: string) =>
  new RegExp(`(^|[\\s,\\[(])${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'm').test(text);

/** The flags (first spelling) that `--help` does not mention in any accepted spelling. */
export function missingFlags(helpText: string): string[] {
  return AGENT_FLAGS.filter((spellings) => !spellings.some((f) => mentions(helpText, f))).map(
    (s) => s[0] as string,
  );
}

export interface BinaryFacts {
  /** The command as configured: a name looked up on PATH, or a path. */
  command: string;
  /** The PATH it was looked up on. */
  path: string;
  resolved: string | null;
  /** With --as-scheduler: where the interactive PATH finds it, when the scheduler's does not. */
  interactive?: string | null;
  version?: CommandRun;
}

export interface AgentFacts extends BinaryFacts {
  help?: CommandRun;
}

function notFound(what: string, f: BinaryFacts, where: Where, install: string): CheckResult {
  const detail = f.command.includes('/')
    ? `"${f.command}" does not exist or is not executable`
    : where.asScheduler
      ? `"${f.command}" is not on the scheduler's PATH (${f.path || 'empty'})`
      : `"${f.command}" is not on PATH`;
  let fix = install;
  if (where.asScheduler && f.interactive) {
    fix =
      `your shell finds ${f.interactive}: ` +
      "run `overnight schedule install` again so the entry's PATH holds its directory";
    if (what === 'agent') fix += `, or set claude: ${f.interactive} in config.yaml`;
  }
  return { name: what, status: 'problem', detail, fix };
}

export function checkAgent(f: AgentFacts, where: Where): CheckResult {
  const name = 'agent';
  const install =
    'install Claude Code (npm install -g @anthropic-ai/claude-code), ' +
    'or set OVERNIGHT_CLAUDE (or claude: in config.yaml) to its absolute path';
  if (!f.resolved) return notFound(name, f, where, install);
  const schedulerOnly = where.asScheduler
    ? " (a script whose interpreter, such as node, is not on the scheduler's PATH fails only there)"
    : '';
  const cannotRun =
    `run \`${f.resolved} --version\` in a terminal to see why; ` +
    `reinstall Claude Code if it is broken${schedulerOnly}`;
  const versionFailure = f.version ? runFailure(f.version) : 'not run';
  if (versionFailure)
    return {
      name,
      status: 'problem',
      detail: `${f.resolved} --version failed (${versionFailure})`,
      fix: cannotRun,
    };
  const version = firstLine(f.version?.stdout ?? '') || 'unknown version';
  const helpFailure = f.help ? runFailure(f.help) : 'not run';
  if (helpFailure)
    return {
      name,
      status: 'problem',
      detail: `${version} at ${f.resolved}: --help failed (${helpFailure})`,
      fix: cannotRun,
    };
  const missing = missingFlags(`${f.help?.stdout ?? ''}\n${f.help?.stderr ?? ''}`);
  if (missing.length > 0) {
    return {
      name,
      status: 'problem',
      detail:
        `${version} at ${f.resolved} does not accept ${missing.join(', ')} (not in its --help); ` +
        'every session would fail',
      fix:
        'upgrade Claude Code (npm install -g @anthropic-ai/claude-code@latest), ' +
        'or point OVERNIGHT_CLAUDE at a current one',
    };
  }
  return { name, status: 'ok', detail: `${version} at ${f.resolved}; accepts every flag overnight passes` };
}

/** `tmux 3.3a` → [3, 3]; `tmux next-3.4` → [3, 4]; null when there is no number. */
export function parseTmuxVersion(text: string): [number, number] | null {
  const m = /(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

export function checkTmux(f: BinaryFacts, where: Where): CheckResult {
  const name = 'tmux';
  if (!f.resolved)
    return notFound(name, f, where, 'install tmux (apt-get install tmux, or brew install tmux)');
  const failure = f.version ? runFailure(f.version) : 'not run';
  if (failure)
    return { name, status: 'problem', detail: `${f.resolved} -V failed (${failure})`, fix: 'reinstall tmux' };
  const text = firstLine(f.version?.stdout ?? '');
  const v = parseTmuxVersion(text);
  if (text.includes('master')) return { name, status: 'ok', detail: `${text} at ${f.resolved}` };
  if (!v)
    return {
      name,
      status: 'warning',
      detail: `${f.resolved} -V printed "${text}", not a version`,
      fix: 'install tmux 3.0 or later',
    };
  if (v[0] < 3)
    return {
      name,
      status: 'warning',
      detail: `${text} at ${f.resolved} is older than 3.0, which overnight is tested with`,
      fix: 'upgrade tmux to 3.0 or later',
    };
  return { name, status: 'ok', detail: `${text} at ${f.resolved}` };
}

/** Directories of version managers and package managers whose node moves on a switch or upgrade. */
const UNSTABLE_NODE: readonly [string, string][] = [
  ['/.nvm/', 'nvm'],
  ['/nvm/versions/', 'nvm'],
  ['/.fnm/', 'fnm'],
  ['/fnm/node-versions/', 'fnm'],
  ['/fnm_multishells/', 'fnm'],
  ['/.volta/', 'Volta'],
  ['/.asdf/', 'asdf'],
  ['/n/versions/', 'n'],
  ['/.nodenv/', 'nodenv'],
  ['/.local/share/mise/', 'mise'],
  ['/mise/installs/', 'mise'],
  ['/.rtx/', 'rtx'],
  ['/.nodebrew/', 'nodebrew'],
  ['/.nvs/', 'nvs'],
  ['/.proto/', 'proto'],
  ['/pnpm/nodejs/', 'pnpm env'],
  ['/Cellar/node', 'Homebrew (a versioned Cellar path)'],
];

/** The version manager that owns this node, or null when its path looks stable. */
export function nodeVersionManager(execPath: string): string | null {
  const path = execPath.replace(/\\/g, '/');
  return UNSTABLE_NODE.find(([dir]) => path.includes(dir))?.[1] ?? null;
}

export function checkNodePath(execPath: string): CheckResult {
  const manager = nodeVersionManager(execPath);
  if (!manager) return { name: 'node', status: 'ok', detail: `${execPath}, outside any version manager` };
  return {
    name: 'node',
    status: 'warning',
    detail:
      `${execPath} belongs to ${manager}: ` +
      'the schedule entry names this path, and a version switch or uninstall breaks it',
    fix:
      'install the schedule with a node outside the version manager ' +
      '(/usr/bin/node /path/to/bin/overnight.js schedule install), ' +
      'or run `overnight schedule install` again after every switch',
  };
}
