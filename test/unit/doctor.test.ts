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
  checkExtraUsage,
  checkPermissionMode,
  doctorExitCode,
  doctorJson,
  renderDoctor,
  schedulerEnv,
  type CheckResult,
  type CheckStatus,
  type CommandRun,
} from '../../src/core/doctor/checks.js';
import { REPO, RUN_DIR, spec } from './builders.js';

const ok = (stdout: string): CommandRun => ({ exitCode: 0, stdout, stderr: '' });
const HELP = [
  '-p, --print',
  '--output-format <format>',
  '--verbose',
  '--session-id <uuid>',
  '-r, --resume [value]',
  '--model <model>',
  '--fallback-model <model>',
  '--permission-mode <mode>',
  '--allowedTools, --allowed-tools <tools...>',
  '--max-budget-usd <amount>',
  '--add-dir <directories...>',
  // 2.1.329 lists only the inline form; the -file form is named in another option's text.
  '--append-system-prompt <prompt>',
  '--fork-session',
  '--system-prompt-snapshot <on|off>',
  '--settings <file-or-json>',
  '--tools <tools...>',
  '--json-schema <schema>',
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
  test.each<{ name: string; facts: Partial<AgentFacts>; where: typeof SHELL; want: Partial<CheckResult> }>([
    {
      name: 'found, version, every flag',
      facts: {},
      where: SHELL,
      want: {
        status: 'ok',
        detail: expect.stringMatching(/2\.1\.329 \(Claude Code\) at \/usr\/bin\/claude; accepts every flag/),
      },
    },
    {
      name: 'missing on PATH',
      facts: { resolved: null },
      where: SHELL,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/^"claude" is not on PATH$/),
        fix: expect.stringMatching(/npm install -g @anthropic-ai\/claude-code.*OVERNIGHT_CLAUDE/),
      },
    },
    {
      name: 'a path that is not there',
      facts: { command: '/nonexistent', resolved: null },
      where: SHELL,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/"\/nonexistent" does not exist or is not executable/),
        fix: expect.stringMatching(/OVERNIGHT_CLAUDE/),
      },
    },
    {
      name: 'missing only for the scheduler',
      facts: { resolved: null, interactive: '/home/me/.nvm/bin/claude' },
      where: CRON,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/not on the scheduler's PATH/),
        fix: expect.stringMatching(
          new RegExp(
            'your shell finds /home/me/\\.nvm/bin/claude: run `overnight schedule install` again' +
              '.*claude: /home/me/\\.nvm/bin/claude',
          ),
        ),
      },
    },
    {
      name: '--version fails',
      facts: {
        version: { exitCode: 127, stdout: '', stderr: "/usr/bin/env: 'node': No such file or directory\n" },
      },
      where: CRON,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/--version failed \(exit 127: \/usr\/bin\/env: 'node'/),
        fix: expect.stringMatching(/interpreter/),
      },
    },
    {
      name: '--version times out',
      facts: { version: { exitCode: null, stdout: '', stderr: '', error: 'no answer within 5 s' } },
      where: SHELL,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/--version failed \(no answer within 5 s\)/),
        fix: expect.stringMatching(/--version` in a terminal/),
      },
    },
    {
      name: '--help fails',
      facts: { help: { exitCode: 1, stdout: 'unknown option', stderr: '' } },
      where: SHELL,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/--help failed \(exit 1: unknown option\)/),
        fix: expect.stringMatching(/./),
      },
    },
    {
      name: '--help lacks --max-budget-usd',
      facts: { help: ok(HELP.replace('--max-budget-usd', '--max-budget')) },
      where: SHELL,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/does not accept --max-budget-usd \(not in its --help\)/),
        fix: expect.stringMatching(/upgrade Claude Code/),
      },
    },
    {
      name: '--help lacks two flags',
      facts: { help: ok(HELP.replace('--session-id', '--session').replace('--verbose', '--loud')) },
      where: SHELL,
      want: {
        status: 'problem',
        detail: expect.stringMatching(/does not accept --verbose, --session-id/),
        fix: expect.stringMatching(/upgrade/),
      },
    },
  ])('$name → $want.status', ({ facts, where, want }) => {
    // No fix wanted: none given.
    const { status, detail, fix } = checkAgent(agent(facts), where);
    expect({ status, detail, fix }).toEqual(want);
  });

  test('help spellings: either form of a flag counts, a flag inside a longer one does not', () => {
    expect(missingFlags(HELP)).toEqual([]);
    expect(missingFlags(HELP.replace('-p, --print', '--print'))).toEqual([]);
    expect(missingFlags(HELP.replace('--allowedTools, ', ''))).toEqual([]);
    expect(missingFlags(HELP.replace('--model <model>', '--model-name <model>'))).toEqual(['--model']);
    expect(missingFlags('')).toEqual(AGENT_FLAGS.map((f) => f[0]));
  });

  test('AGENT_FLAGS covers every flag agentArgs passes', () => {
    const s = spec({
      model: 'opus',
      fallbackModel: 'sonnet',
      maxCost: 10,
      allowedTools: ['Read'],
      repo: REPO,
      continues: '2026-11-20-2300-survey-crdt',
    });
    const passed = new Set(
      [
        ...agentArgs(s, 'initial', 0, false, RUN_DIR),
        ...agentArgs(s, 'resume', 0, false, RUN_DIR),
        ...agentArgs(s, 'initial', 0, false, RUN_DIR, '5d2c7a9e-0f6b-4e8d-b1a3-9c4e2f7d6a10'),
      ].filter((a) => a.startsWith('-')),
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
  test.each<{ name: string; facts: Partial<BinaryFacts>; want: { status: CheckStatus; detail: RegExp } }>([
    { name: '3.3a', facts: {}, want: { status: 'ok', detail: /tmux 3\.3a at \/usr\/bin\/tmux/ } },
    { name: '3.0', facts: { version: ok('tmux 3.0') }, want: { status: 'ok', detail: /tmux 3\.0/ } },
    {
      name: 'next-3.6',
      facts: { version: ok('tmux next-3.6') },
      want: { status: 'ok', detail: /next-3\.6/ },
    },
    { name: 'master', facts: { version: ok('tmux master') }, want: { status: 'ok', detail: /master/ } },
    {
      name: 'old 2.9a',
      facts: { version: ok('tmux 2.9a') },
      want: { status: 'warning', detail: /older than 3\.0/ },
    },
    {
      name: 'old 1.8',
      facts: { version: ok('tmux 1.8') },
      want: { status: 'warning', detail: /older than 3\.0/ },
    },
    {
      name: 'no version',
      facts: { version: ok('tmux') },
      want: { status: 'warning', detail: /not a version/ },
    },
    {
      name: 'missing',
      facts: { resolved: null },
      want: { status: 'problem', detail: /"tmux" is not on PATH/ },
    },
    {
      name: '-V fails',
      facts: { version: { exitCode: 1, stdout: '', stderr: 'boom' } },
      want: { status: 'problem', detail: /-V failed \(exit 1: boom\)/ },
    },
  ])('$name → $want.status', ({ facts, want }) => {
    const r = checkTmux(tmux(facts), SHELL);
    expect(r.status).toBe(want.status);
    expect(r.detail).toMatch(want.detail);
    expect(r.fix === undefined).toBe(want.status === 'ok');
  });

  test('parseTmuxVersion', () => {
    expect(parseTmuxVersion('tmux 3.3a')).toEqual([3, 3]);
    expect(parseTmuxVersion('tmux openbsd-7.4')).toEqual([7, 4]);
    expect(parseTmuxVersion('tmux master')).toBeNull();
  });
});

describe('node path', () => {
  // A node a version manager may move or remove: the schedule needs a node path that stays.
  const REINSTALL = expect.stringMatching(/schedule install/);
  test.each<{ path: string; want: { manager: string | null; status: CheckStatus; fix?: unknown } }>([
    { path: '/usr/bin/node', want: { manager: null, status: 'ok' } },
    { path: '/usr/local/bin/node', want: { manager: null, status: 'ok' } },
    { path: '/opt/homebrew/bin/node', want: { manager: null, status: 'ok' } },
    {
      path: '/home/me/.nvm/versions/node/v22.11.0/bin/node',
      want: { manager: 'nvm', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/Users/me/.local/share/fnm/node-versions/v20.1.0/installation/bin/node',
      want: { manager: 'fnm', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/Users/me/.local/state/fnm_multishells/1234_5678/bin/node',
      want: { manager: 'fnm', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/home/me/.volta/tools/image/node/20.11.0/bin/node',
      want: { manager: 'Volta', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/home/me/.asdf/installs/nodejs/20.11.0/bin/node',
      want: { manager: 'asdf', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/usr/local/n/versions/node/20.11.0/bin/node',
      want: { manager: 'n', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/home/me/.nodenv/versions/20.11.0/bin/node',
      want: { manager: 'nodenv', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/home/me/.local/share/mise/installs/node/22/bin/node',
      want: { manager: 'mise', status: 'warning', fix: REINSTALL },
    },
    {
      path: '/opt/homebrew/Cellar/node/22.1.0/bin/node',
      want: { manager: 'Homebrew (a versioned Cellar path)', status: 'warning', fix: REINSTALL },
    },
  ])('$path → $want.status', ({ path, want }) => {
    const { status, fix } = checkNodePath(path);
    expect({ manager: nodeVersionManager(path), status, fix }).toMatchObject(want);
  });
});

describe('credentials', () => {
  // Every warning names the ways to give the scheduler credentials.
  const SETUP_TOKEN = expect.stringMatching(/claude setup-token.*CLAUDE_CODE_OAUTH_TOKEN/);
  test.each<{
    name: string;
    env: Record<string, string>;
    where: typeof SHELL;
    launch?: Record<string, string>;
    want: Partial<CheckResult>;
  }>([
    {
      name: 'API key',
      env: { ANTHROPIC_API_KEY: 'sk-x' },
      where: SHELL,
      want: { status: 'ok', detail: expect.stringMatching(/^ANTHROPIC_API_KEY is set$/) },
    },
    {
      name: 'OAuth token',
      env: { CLAUDE_CODE_OAUTH_TOKEN: 'tok' },
      where: SHELL,
      want: { status: 'ok', detail: expect.stringMatching(/CLAUDE_CODE_OAUTH_TOKEN is set/) },
    },
    {
      name: 'Bedrock',
      env: { CLAUDE_CODE_USE_BEDROCK: '1' },
      where: SHELL,
      want: { status: 'ok', detail: expect.stringMatching(/Amazon Bedrock/) },
    },
    {
      name: 'none',
      env: {},
      where: SHELL,
      want: {
        status: 'warning',
        detail: expect.stringMatching(
          /neither ANTHROPIC_API_KEY nor CLAUDE_CODE_OAUTH_TOKEN is set: a login kept in the keychain/,
        ),
        fix: SETUP_TOKEN,
      },
    },
    {
      name: 'empty value',
      env: { ANTHROPIC_API_KEY: ' ' },
      where: SHELL,
      want: { status: 'warning', detail: expect.stringMatching(/neither/), fix: SETUP_TOKEN },
    },
    {
      name: 'scheduler has one',
      env: { CLAUDE_CODE_OAUTH_TOKEN: 't' },
      where: CRON,
      launch: {},
      want: { status: 'ok', detail: expect.stringMatching(/in the scheduler's environment/) },
    },
    {
      name: 'only the launching shell has one',
      env: {},
      where: CRON,
      launch: { ANTHROPIC_API_KEY: 'k' },
      want: {
        status: 'ok',
        detail: expect.stringMatching(
          /in this shell, not in the scheduler's environment: runs launched from here keep it/,
        ),
      },
    },
    {
      name: 'neither has one',
      env: {},
      where: CRON,
      launch: {},
      want: {
        status: 'warning',
        detail: expect.stringMatching(/scheduler's environment or this shell/),
        fix: SETUP_TOKEN,
      },
    },
  ])('$name → $want.status', ({ env, where, launch, want }) => {
    const r = checkCredentials(env, where, launch);
    expect(r).toMatchObject(want);
    expect(JSON.stringify(r)).not.toMatch(/sk-x|tok"/);
  });
});

describe('permission mode', () => {
  test.each<{
    name: string;
    mode: string;
    root: boolean;
    env: Record<string, string>;
    want: Partial<CheckResult>;
  }>([
    { name: 'acceptEdits as root', mode: 'acceptEdits', root: true, env: {}, want: { status: 'ok' } },
    { name: 'bypass as a user', mode: 'bypassPermissions', root: false, env: {}, want: { status: 'ok' } },
    {
      name: 'bypass as root',
      mode: 'bypassPermissions',
      root: true,
      env: {},
      want: {
        status: 'problem',
        detail: expect.stringMatching(/bypassPermissions is refused .* as root/),
        fix: expect.stringMatching(/acceptEdits.*IS_SANDBOX=1/),
      },
    },
    {
      name: 'bypass as root in a sandbox',
      mode: 'bypassPermissions',
      root: true,
      env: { IS_SANDBOX: '1' },
      want: { status: 'ok' },
    },
    { name: 'default denies silently', mode: 'default', root: false, env: {}, want: { status: 'warning' } },
    { name: 'plan writes nothing', mode: 'plan', root: false, env: {}, want: { status: 'warning' } },
  ])('$name → $want.status', ({ mode, root, env, want }) => {
    expect(checkPermissionMode(mode, root, env)).toMatchObject(want);
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

describe('extra usage', () => {
  test.each<{ allow: boolean; want: RegExp }>([
    { allow: false, want: /^allow_overage is off: a run that would bill paid extra usage is stopped/ },
    { allow: true, want: /^allow_overage is on: .* runs keep working on paid extra usage/ },
  ])('allow_overage $allow → said plainly', ({ allow, want }) => {
    expect(checkExtraUsage(allow)).toMatchObject({ name: 'extra usage', status: 'ok', detail: want });
  });
});
