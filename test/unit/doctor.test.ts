import { describe, expect, test } from 'vitest';

import { agentArgs } from '../../src/core/agent/args.js';
import {
  AGENT_FLAGS,
  checkAgent,
  checkNodePath,
  checkTmux,
  missingFlags,
  nodeVersionManager,
  parseTmuxVersion,
  type AgentFacts,
  type BinaryFacts,
} from '../../src/core/doctor/binaries.js';
import {
  checkConfig,
  checkCredentials,
  checkPermissionMode,
  doctorExitCode,
  doctorJson,
  renderDoctor,
  schedulerEnv,
  type CheckResult,
  type CheckStatus,
  type CommandRun,
} from '../../src/core/doctor/checks.js';
import { spec } from './builders.js';

const ok = (stdout: string): CommandRun => ({ exitCode: 0, stdout, stderr: '' });
const HELP = [
  '-p, --print',
  '--output-format <format>',
  '--verbose',
  '--session-id <uuid>',
  '-r, --resume [value]',
  '--model <model>',
  '--permission-mode <mode>',
  '--allowedTools, --allowed-tools <tools...>',
  '--max-budget-usd <amount>',
]
  .map((l) => `  ${l.padEnd(40)}does something`)
  .join('\n');
const SHELL = { asScheduler: false };
const CRON = { asScheduler: true };

const agent = (over: Partial<AgentFacts> = {}): AgentFacts => ({
  command: 'claude',
  path: '/usr/bin:/bin',
  resolved: '/usr/bin/claude',
  version: ok('2.1.329 (Claude Code)\n'),
  help: ok(HELP),
  ...over,
});

describe('agent', () => {
  test.each<[string, Partial<AgentFacts>, typeof SHELL, CheckStatus, RegExp, RegExp | null]>([
    [
      'found, version, every flag',
      {},
      SHELL,
      'ok',
      /2\.1\.329 \(Claude Code\) at \/usr\/bin\/claude; accepts every flag/,
      null,
    ],
    [
      'missing on PATH',
      { resolved: null },
      SHELL,
      'problem',
      /^"claude" is not on PATH$/,
      /npm install -g @anthropic-ai\/claude-code.*OVERNIGHT_CLAUDE/,
    ],
    [
      'a path that is not there',
      { command: '/nonexistent', resolved: null },
      SHELL,
      'problem',
      /"\/nonexistent" does not exist or is not executable/,
      /OVERNIGHT_CLAUDE/,
    ],
    [
      'missing only for the scheduler',
      { resolved: null, interactive: '/home/me/.nvm/bin/claude' },
      CRON,
      'problem',
      /not on the scheduler's PATH/,
      /your shell finds \/home\/me\/\.nvm\/bin\/claude: run `overnight schedule install` again.*claude: \/home\/me\/\.nvm\/bin\/claude/,
    ],
    [
      '--version fails',
      { version: { exitCode: 127, stdout: '', stderr: "/usr/bin/env: 'node': No such file or directory\n" } },
      CRON,
      'problem',
      /--version failed \(exit 127: \/usr\/bin\/env: 'node'/,
      /interpreter/,
    ],
    [
      '--version times out',
      { version: { exitCode: null, stdout: '', stderr: '', error: 'no answer within 5 s' } },
      SHELL,
      'problem',
      /--version failed \(no answer within 5 s\)/,
      /--version` in a terminal/,
    ],
    [
      '--help fails',
      { help: { exitCode: 1, stdout: 'unknown option', stderr: '' } },
      SHELL,
      'problem',
      /--help failed \(exit 1: unknown option\)/,
      /./,
    ],
    [
      '--help lacks --max-budget-usd',
      { help: ok(HELP.replace('--max-budget-usd', '--max-budget')) },
      SHELL,
      'problem',
      /does not accept --max-budget-usd \(not in its --help\)/,
      /upgrade Claude Code/,
    ],
    [
      '--help lacks two flags',
      { help: ok(HELP.replace('--session-id', '--session').replace('--verbose', '--loud')) },
      SHELL,
      'problem',
      /does not accept --verbose, --session-id/,
      /upgrade/,
    ],
  ])('%s', (_name, over, where, status, detail, fix) => {
    const r = checkAgent(agent(over), where);
    expect(r.status).toBe(status);
    expect(r.detail).toMatch(detail);
    if (fix) expect(r.fix).toMatch(fix);
    else expect(r.fix).toBeUndefined();
  });

  test('help spellings: either form of a flag counts, a flag inside a longer one does not', () => {
    expect(missingFlags(HELP)).toEqual([]);
    expect(missingFlags(HELP.replace('-p, --print', '--print'))).toEqual([]);
    expect(missingFlags(HELP.replace('--allowedTools, ', ''))).toEqual([]);
    expect(missingFlags(HELP.replace('--model <model>', '--model-name <model>'))).toEqual(['--model']);
    expect(missingFlags('')).toEqual(AGENT_FLAGS.map((f) => f[0]));
  });

  test('AGENT_FLAGS covers every flag agentArgs passes', () => {
    const s = spec({ model: 'opus', maxCost: 10, allowedTools: ['Read'] });
    const passed = new Set(
      [...agentArgs(s, 'initial'), ...agentArgs(s, 'resume')].filter((a) => a.startsWith('-')),
    );
    for (const f of passed)
      expect(
        AGENT_FLAGS.some((spellings) => spellings.includes(f)),
        f,
      ).toBe(true);
  });
});

describe('tmux', () => {
  const tmux = (over: Partial<BinaryFacts> = {}): BinaryFacts => ({
    command: 'tmux',
    path: '/usr/bin',
    resolved: '/usr/bin/tmux',
    version: ok('tmux 3.3a\n'),
    ...over,
  });
  test.each<[string, Partial<BinaryFacts>, CheckStatus, RegExp]>([
    ['3.3a', {}, 'ok', /tmux 3\.3a at \/usr\/bin\/tmux/],
    ['3.0', { version: ok('tmux 3.0') }, 'ok', /tmux 3\.0/],
    ['next-3.6', { version: ok('tmux next-3.6') }, 'ok', /next-3\.6/],
    ['master', { version: ok('tmux master') }, 'ok', /master/],
    ['old 2.9a', { version: ok('tmux 2.9a') }, 'warning', /older than 3\.0/],
    ['old 1.8', { version: ok('tmux 1.8') }, 'warning', /older than 3\.0/],
    ['no version', { version: ok('tmux') }, 'warning', /not a version/],
    ['missing', { resolved: null }, 'problem', /"tmux" is not on PATH/],
    [
      '-V fails',
      { version: { exitCode: 1, stdout: '', stderr: 'boom' } },
      'problem',
      /-V failed \(exit 1: boom\)/,
    ],
  ])('%s', (_name, over, status, detail) => {
    const r = checkTmux(tmux(over), SHELL);
    expect(r.status).toBe(status);
    expect(r.detail).toMatch(detail);
    expect(r.fix === undefined).toBe(status === 'ok');
  });

  test('parseTmuxVersion', () => {
    expect(parseTmuxVersion('tmux 3.3a')).toEqual([3, 3]);
    expect(parseTmuxVersion('tmux openbsd-7.4')).toEqual([7, 4]);
    expect(parseTmuxVersion('tmux master')).toBeNull();
  });
});

describe('node path', () => {
  test.each<[string, string | null]>([
    ['/usr/bin/node', null],
    ['/usr/local/bin/node', null],
    ['/opt/homebrew/bin/node', null],
    ['/home/me/.nvm/versions/node/v22.11.0/bin/node', 'nvm'],
    ['/Users/me/.local/share/fnm/node-versions/v20.1.0/installation/bin/node', 'fnm'],
    ['/Users/me/.local/state/fnm_multishells/1234_5678/bin/node', 'fnm'],
    ['/home/me/.volta/tools/image/node/20.11.0/bin/node', 'Volta'],
    ['/home/me/.asdf/installs/nodejs/20.11.0/bin/node', 'asdf'],
    ['/usr/local/n/versions/node/20.11.0/bin/node', 'n'],
    ['/home/me/.nodenv/versions/20.11.0/bin/node', 'nodenv'],
    ['/home/me/.local/share/mise/installs/node/22/bin/node', 'mise'],
    ['/opt/homebrew/Cellar/node/22.1.0/bin/node', 'Homebrew (a versioned Cellar path)'],
  ])('%s', (path, manager) => {
    expect(nodeVersionManager(path)).toBe(manager);
    const r = checkNodePath(path);
    expect(r.status).toBe(manager ? 'warning' : 'ok');
    if (manager) expect(r.fix).toMatch(/schedule install/);
  });
});

describe('credentials', () => {
  test.each<
    [string, Record<string, string>, typeof SHELL, Record<string, string> | undefined, CheckStatus, RegExp]
  >([
    ['API key', { ANTHROPIC_API_KEY: 'sk-x' }, SHELL, undefined, 'ok', /^ANTHROPIC_API_KEY is set$/],
    [
      'OAuth token',
      { CLAUDE_CODE_OAUTH_TOKEN: 'tok' },
      SHELL,
      undefined,
      'ok',
      /CLAUDE_CODE_OAUTH_TOKEN is set/,
    ],
    ['Bedrock', { CLAUDE_CODE_USE_BEDROCK: '1' }, SHELL, undefined, 'ok', /Amazon Bedrock/],
    [
      'none',
      {},
      SHELL,
      undefined,
      'warning',
      /neither ANTHROPIC_API_KEY nor CLAUDE_CODE_OAUTH_TOKEN is set: a login kept in the keychain/,
    ],
    ['empty value', { ANTHROPIC_API_KEY: ' ' }, SHELL, undefined, 'warning', /neither/],
    ['scheduler has one', { CLAUDE_CODE_OAUTH_TOKEN: 't' }, CRON, {}, 'ok', /in the scheduler's environment/],
    [
      'only the launching shell has one',
      {},
      CRON,
      { ANTHROPIC_API_KEY: 'k' },
      'ok',
      /in this shell, not in the scheduler's environment: runs launched from here keep it/,
    ],
    ['neither has one', {}, CRON, {}, 'warning', /scheduler's environment or this shell/],
  ])('%s', (_name, env, where, launch, status, detail) => {
    const r = checkCredentials(env, where, launch);
    expect(r.status).toBe(status);
    expect(r.detail).toMatch(detail);
    if (status === 'warning') expect(r.fix).toMatch(/claude setup-token.*CLAUDE_CODE_OAUTH_TOKEN/);
    expect(JSON.stringify(r)).not.toMatch(/sk-x|tok"/);
  });
});

describe('permission mode', () => {
  test.each<[string, string, boolean, Record<string, string>, CheckStatus]>([
    ['acceptEdits as root', 'acceptEdits', true, {}, 'ok'],
    ['bypass as a user', 'bypassPermissions', false, {}, 'ok'],
    ['bypass as root', 'bypassPermissions', true, {}, 'problem'],
    ['bypass as root in a sandbox', 'bypassPermissions', true, { IS_SANDBOX: '1' }, 'ok'],
    ['default denies silently', 'default', false, {}, 'warning'],
    ['plan writes nothing', 'plan', false, {}, 'warning'],
  ])('%s', (_name, mode, root, env, status) => {
    const r = checkPermissionMode(mode, root, env);
    expect(r.status).toBe(status);
    if (status === 'problem') {
      expect(r.detail).toMatch(/bypassPermissions is refused .* as root/);
      expect(r.fix).toMatch(/acceptEdits.*IS_SANDBOX=1/);
    }
  });
});

describe('config', () => {
  test('valid, absent, and bad values', () => {
    expect(checkConfig({ path: '/c/config.yaml', exists: true, problems: [] })).toMatchObject({
      status: 'ok',
      detail: '/c/config.yaml is valid',
    });
    expect(checkConfig({ path: '/c/config.yaml', exists: false, problems: [] }).detail).toMatch(
      /no \/c\/config\.yaml: defaults/,
    );
    const r = checkConfig({
      path: '/c/config.yaml',
      exists: true,
      problems: [
        { key: 'stale_after', source: '/c/config.yaml', value: 'soon', message: 'expected a duration' },
      ],
    });
    expect(r.status).toBe('problem');
    expect(r.detail).toBe('/c/config.yaml: stale_after = "soon" is not valid; expected a duration');
    expect(r.fix).toMatch(/launch refuses/);
  });
});

describe('scheduler environment', () => {
  const shell = {
    PATH: '/home/me/.nvm/bin:/usr/bin',
    HOME: '/home/me',
    USER: 'me',
    ANTHROPIC_API_KEY: 'k',
    OVERNIGHT_HOME: '/r',
    XDG_CONFIG_HOME: '/x',
  };
  test('like env -i: the entry PATH (else cron default), identity, OVERNIGHT_HOME', () => {
    expect(schedulerEnv(shell)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      USER: 'me',
      LOGNAME: 'me',
      OVERNIGHT_HOME: '/r',
    });
    expect(schedulerEnv(shell, { path: '/opt/node/bin:/usr/bin', env: { TZ: 'UTC' } })).toEqual({
      PATH: '/opt/node/bin:/usr/bin',
      HOME: '/home/me',
      USER: 'me',
      LOGNAME: 'me',
      OVERNIGHT_HOME: '/r',
      TZ: 'UTC',
    });
    expect(schedulerEnv({ HOME: '/h', LOGNAME: 'l' })).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/h',
      USER: 'l',
      LOGNAME: 'l',
    });
  });
});

describe('report', () => {
  const results: CheckResult[] = [
    { name: 'agent', status: 'ok', detail: '2.1.329 at /usr/bin/claude' },
    { name: 'credentials', status: 'warning', detail: 'no token', fix: 'claude setup-token' },
    { name: 'tmux', status: 'problem', detail: 'not found', fix: 'install tmux' },
  ];
  test('text: status, name, detail; the fix indented under it; a verdict', () => {
    expect(renderDoctor(results, SHELL)).toEqual([
      'ok       agent        2.1.329 at /usr/bin/claude',
      'warning  credentials  no token',
      '                      fix: claude setup-token',
      'problem  tmux         not found',
      '                      fix: install tmux',
      "1 problem, 1 warning: tonight's runs would break; fix the problems first.",
    ]);
    expect(renderDoctor(results.slice(0, 2), SHELL).at(-1)).toBe('No problems, 1 warning.');
    expect(renderDoctor(results.slice(0, 1), SHELL).at(-1)).toBe('Everything a night needs is in place.');
  });

  test('--as-scheduler names the environment, hiding secrets', () => {
    const lines = renderDoctor(results.slice(0, 1), {
      asScheduler: true,
      env: { PATH: '/usr/bin:/bin', HOME: '/h', CLAUDE_CODE_OAUTH_TOKEN: 'secret' },
    });
    expect(lines[0]).toBe(
      'As the scheduler would run it: PATH=/usr/bin:/bin HOME=/h CLAUDE_CODE_OAUTH_TOKEN=(set)',
    );
  });

  test('json: the results, a summary, the exit code', () => {
    expect(JSON.parse(doctorJson(results, SHELL))).toEqual({
      asScheduler: false,
      checks: results,
      summary: { ok: 1, warnings: 1, problems: 1 },
    });
    expect(doctorExitCode(results)).toBe(1);
    expect(doctorExitCode(results.slice(0, 2))).toBe(0);
  });
});
