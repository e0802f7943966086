import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

import {
  CONFIG_KEYS,
  DEFAULT_ALLOWED_TOOLS,
  defaultSettings,
  describeProblem,
  limitsOf,
  resolveSettings,
  type Layers,
  type Settings,
} from '../../src/core/config/settings.js';

const HOME = '/home/ada';
const FILE = '/home/ada/.config/overnight/config.yaml';

function resolve(over: Partial<Layers> = {}) {
  return resolveSettings({ home: HOME, env: {}, ...over });
}
const fromYaml = (text: string) => ({ path: FILE, data: parse(text) as unknown });

describe('defaults', () => {
  test('no file, no env, no flags: the documented defaults', () => {
    const { settings, problems } = resolve();
    expect(problems).toEqual([]);
    expect(settings).toEqual<Settings>({
      runsDir: '/home/ada/overnight-runs',
      claude: 'claude',
      model: null,
      maxCost: null,
      duration: 8 * 3600,
      maxRestarts: 5,
      permissionMode: 'acceptEdits',
      allowedTools: ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebSearch', 'WebFetch'],
      synthesisBudget: 1800,
      staleAfter: 1800,
      hangGrace: 300,
      backoff: 30,
      backoffMax: 600,
      healthyAfter: 600,
      minUptime: 60,
      limitMargin: 300,
      maxTranscript: 256 * 1024 * 1024,
      stopGrace: 10,
    });
  });

  test('an empty file (null document) is no problem', () => {
    expect(resolve({ file: { path: FILE, data: null } }).problems).toEqual([]);
  });

  test('defaults are not shared between calls', () => {
    const a = defaultSettings(HOME);
    a.allowedTools.push('Bash');
    expect(defaultSettings(HOME).allowedTools).toEqual(DEFAULT_ALLOWED_TOOLS);
    expect(DEFAULT_ALLOWED_TOOLS).not.toContain('Bash');
  });
});

describe('precedence: flag > env > file > default', () => {
  const file = fromYaml('duration: 4h\nmax_restarts: 3\nmodel: sonnet\npermission_mode: plan\nbackoff: 1m\n');
  const env = { OVERNIGHT_DURATION: '6h', OVERNIGHT_MAX_RESTARTS: '7', OVERNIGHT_MODEL: 'opus' };
  const flags = { duration: '2h', max_restarts: '9' };

  test.each<[string, Partial<Layers>, Partial<Settings>]>([
    [
      'default only',
      {},
      { duration: 28800, maxRestarts: 5, model: null, permissionMode: 'acceptEdits', backoff: 30 },
    ],
    [
      'file over default',
      { file },
      { duration: 14400, maxRestarts: 3, model: 'sonnet', permissionMode: 'plan', backoff: 60 },
    ],
    [
      'env over file',
      { file, env },
      { duration: 21600, maxRestarts: 7, model: 'opus', permissionMode: 'plan', backoff: 60 },
    ],
    [
      'flag over env',
      { file, env, flags },
      { duration: 7200, maxRestarts: 9, model: 'opus', permissionMode: 'plan', backoff: 60 },
    ],
    [
      'flag over default',
      { flags: { model: 'claude-opus-4-1' } },
      { model: 'claude-opus-4-1', duration: 28800 },
    ],
    ['an empty env value is unset', { file, env: { OVERNIGHT_DURATION: '' } }, { duration: 14400 }],
    ['an undefined flag is unset', { env, flags: { duration: undefined } }, { duration: 21600 }],
  ])('%s', (_name, layers, want) => {
    const { settings, problems } = resolve(layers);
    expect(problems).toEqual([]);
    expect(settings).toMatchObject(want);
  });

  test.each([
    ['OVERNIGHT_HOME', 'runsDir', '/srv/runs'],
    ['OVERNIGHT_CLAUDE', 'claude', '/opt/claude/bin/claude'],
    ['OVERNIGHT_PERMISSION_MODE', 'permissionMode', 'dontAsk'],
    ['OVERNIGHT_SYNTHESIS_BUDGET', 'synthesisBudget', 900],
    ['OVERNIGHT_MIN_UPTIME', 'minUptime', 0],
  ] as const)('%s sets %s', (name, field, value) => {
    const env = { [name]: typeof value === 'number' ? `${value}s` : value };
    expect(resolve({ env }).settings[field]).toBe(value);
  });

  test('runs_dir and claude: every layer, each overriding the one below', () => {
    const file = fromYaml('runs_dir: /data/file-runs\nclaude: /file/claude\n');
    const env = { OVERNIGHT_HOME: '/data/env-runs', OVERNIGHT_CLAUDE: '/env/claude' };
    expect(resolve({ file }).settings).toMatchObject({ runsDir: '/data/file-runs', claude: '/file/claude' });
    expect(resolve({ file, env }).settings).toMatchObject({
      runsDir: '/data/env-runs',
      claude: '/env/claude',
    });
    const flags = { runs_dir: '/data/flag-runs', claude: 'claude-beta' };
    expect(resolve({ file, env, flags }).settings).toMatchObject({
      runsDir: '/data/flag-runs',
      claude: 'claude-beta',
    });
  });
});

describe('values', () => {
  test.each<[string, string, Partial<Settings>]>([
    ['runs_dir with ~/', 'runs_dir: ~/nights\n', { runsDir: '/home/ada/nights' }],
    ['runs_dir as "~"', 'runs_dir: "~"\n', { runsDir: HOME }],
    ['runs_dir with ~ inside is literal', 'runs_dir: /data/~x\n', { runsDir: '/data/~x' }],
    ['claude with ~/', 'claude: ~/bin/claude\n', { claude: '/home/ada/bin/claude' }],
    [
      'allowed_tools as a YAML list',
      'allowed_tools: [Read, "Bash(git log:*)", WebFetch]\n',
      { allowedTools: ['Read', 'Bash(git log:*)', 'WebFetch'] },
    ],
    [
      'allowed_tools as a block list',
      'allowed_tools:\n  - Read\n  - Grep\n',
      { allowedTools: ['Read', 'Grep'] },
    ],
    [
      'allowed_tools as a comma string',
      'allowed_tools: "Read, Write,,Grep "\n',
      { allowedTools: ['Read', 'Write', 'Grep'] },
    ],
    ['numbers as YAML numbers', 'max_restarts: 0\nmodel: 4\n', { maxRestarts: 0, model: '4' }],
    ['model: null keeps the default', 'model: null\n', { model: null }],
    [
      'zero is allowed where a wait may be off',
      'hang_grace: 0s\nbackoff: 0s\nbackoff_max: 0m\nhealthy_after: 0h\nmin_uptime: 0s\n',
      { hangGrace: 0, backoff: 0, backoffMax: 0, healthyAfter: 0, minUptime: 0 },
    ],
    [
      'durations in any unit',
      'duration: 1h30m\nsynthesis_budget: 45M\nstale_after: 1d\n',
      { duration: 5400, synthesisBudget: 2700, staleAfter: 86400 },
    ],
  ])('%s', (_name, yaml, want) => {
    const { settings, problems } = resolve({ file: fromYaml(yaml) });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject(want);
  });

  test('env OVERNIGHT_HOME with ~/ and a comma list of tools', () => {
    const { settings } = resolve({
      env: { OVERNIGHT_HOME: '~/runs', OVERNIGHT_ALLOWED_TOOLS: 'Read,WebSearch' },
    });
    expect(settings.runsDir).toBe('/home/ada/runs');
    expect(settings.allowedTools).toEqual(['Read', 'WebSearch']);
  });
});

describe('problems', () => {
  // One bad value per key: the problem names the key and the value, says what is accepted, and the default stands.
  const bad: [string, unknown, RegExp][] = [
    ['runs_dir', '', /directory path/],
    ['runs_dir', ['/a', '/b'], /directory path/],
    ['claude', '   ', /command name or an absolute path/],
    ['model', 'opus 4', /model name or alias/],
    ['model', '-x', /model name/],
    ['duration', '0s', /greater than zero/],
    ['duration', '8 hours', /duration such as 45s, 30m, 8h/],
    ['duration', 8, /duration/],
    ['max_restarts', '-1', /whole number, 0 or more/],
    ['max_restarts', 2.5, /whole number/],
    ['max_restarts', 'five', /whole number/],
    ['permission_mode', 'yolo', /one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan/],
    ['allowed_tools', [], /list of tool names/],
    ['allowed_tools', ' , ', /list of tool names/],
    ['allowed_tools', ['Read', 3], /list of tool names/],
    ['synthesis_budget', '0m', /greater than zero/],
    ['stale_after', 'soon', /duration/],
    ['hang_grace', '-5m', /duration/],
    ['backoff', '30', /duration/],
    ['backoff_max', '10x', /duration/],
    ['healthy_after', true, /duration/],
    ['min_uptime', '1 m', /duration/],
  ];

  test.each(bad)('file %s = %j', (key, value, accepted) => {
    const { settings, problems } = resolve({ file: { path: FILE, data: { [key]: value } } });
    expect(problems).toHaveLength(1);
    const p = problems[0]!;
    expect(p).toMatchObject({ key, source: FILE, value });
    expect(p.message).toMatch(accepted);
    const line = describeProblem(p);
    expect(line).toContain(FILE);
    expect(line).toContain(key);
    expect(line).toContain(JSON.stringify(value));
    expect(line).toMatch(accepted);
    expect(settings).toEqual(defaultSettings(HOME));
  });

  test('a bad env value leaves the file value standing, and names the variable', () => {
    const { settings, problems } = resolve({
      file: fromYaml('duration: 4h\n'),
      env: { OVERNIGHT_DURATION: 'all night' },
    });
    expect(settings.duration).toBe(14400);
    expect(problems).toHaveLength(1);
    expect(describeProblem(problems[0]!)).toBe(
      'environment OVERNIGHT_DURATION: duration = "all night" is not valid; expected a duration such as 45s, 30m, 8h or 1h30m, greater than zero',
    );
  });

  test('a bad flag leaves the env value standing, and names the flag', () => {
    const { settings, problems } = resolve({
      env: { OVERNIGHT_MAX_RESTARTS: '2' },
      flags: { max_restarts: 'lots' },
    });
    expect(settings.maxRestarts).toBe(2);
    expect(describeProblem(problems[0]!)).toBe(
      '--max-restarts: max_restarts = "lots" is not valid; expected a whole number, 0 or more',
    );
  });

  test('an unknown key lists the known keys; the other keys still apply', () => {
    const { settings, problems } = resolve({ file: fromYaml('max_restart: 3\nduration: 2h\n') });
    expect(settings.duration).toBe(7200);
    expect(settings.maxRestarts).toBe(5);
    expect(problems).toHaveLength(1);
    const line = describeProblem(problems[0]!);
    expect(line).toContain(FILE);
    expect(line).toContain('"max_restart"');
    for (const key of Object.keys(CONFIG_KEYS)) expect(line).toContain(key);
  });

  test('an unknown flag key is a problem too', () => {
    expect(describeProblem(resolve({ flags: { colour: 'red' } }).problems[0]!)).toMatch(
      /^--colour: unknown key "colour"; known keys: runs_dir, /,
    );
  });

  test.each([
    ['a list', '- duration: 8h\n'],
    ['a scalar', 'just some text\n'],
    ['a number', '42\n'],
  ])('a file holding %s is not a mapping', (_name, yaml) => {
    const { settings, problems } = resolve({ file: fromYaml(yaml) });
    expect(problems).toHaveLength(1);
    expect(describeProblem(problems[0]!)).toBe(`${FILE}: expected a mapping of keys to values (key: value)`);
    expect(settings).toEqual(defaultSettings(HOME));
  });

  test('every problem is reported, not just the first', () => {
    const { problems } = resolve({
      file: fromYaml('duration: x\nbackoff: y\nnope: 1\n'),
      env: { OVERNIGHT_MODEL: 'a b' },
    });
    expect(problems.map((p) => p.key)).toEqual(['duration', 'backoff', 'nope', 'model']);
  });
});

test.each<[string, number | undefined]>([
  ['256MB', 256 * 1024 ** 2],
  ['1GB', 1024 ** 3],
  ['500k', 500 * 1024],
  ['1000', 1000],
  ['lots', undefined],
])('max_transcript %s', (text, bytes) => {
  const { settings, problems } = resolve({ env: { OVERNIGHT_MAX_TRANSCRIPT: text } });
  if (bytes === undefined) expect(problems[0]?.message).toMatch(/expected a size such as 256MB/);
  else expect(settings.maxTranscript).toBe(bytes);
});

test('limitsOf takes every limit a run is launched with, and nothing else', () => {
  const { settings } = resolve({ env: { OVERNIGHT_STOP_GRACE: '3s', OVERNIGHT_MAX_RESTARTS: '2' } });
  const limits = limitsOf(settings);
  expect(limits).toMatchObject({
    stopGrace: 3,
    maxRestarts: 2,
    limitMargin: 300,
    maxTranscript: 256 * 1024 ** 2,
  });
  expect(Object.keys(limits).sort()).toEqual(
    [
      'backoff',
      'backoffMax',
      'hangGrace',
      'healthyAfter',
      'limitMargin',
      'maxRestarts',
      'maxTranscript',
      'minUptime',
      'staleAfter',
      'stopGrace',
      'synthesisBudget',
    ].sort(),
  );
});
