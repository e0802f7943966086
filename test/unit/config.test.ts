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
      allowedTools: ['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch'],
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
      notify: [],
      notifyTimeout: 10,
      notifyTries: 5,
      notifyBackoff: 120,
      transientMax: 2 * 3600,
      lateReport: 6 * 3600,
      allowOverage: false,
      fallbackModel: null,
      backend: null,
      verify: null,
      verifyTimeout: 20 * 60,
      verifyBudget: 0,
      verifyJunit: null,
      verifyUnconfined: false,
      review: false,
      reviewBudget: 600,
      reviewModel: null,
      sandbox: null,
      sandboxNetwork: [],
      sandboxWrite: [],
      slurm: { partition: null, account: null, mem: null, cpus: null, extra: [] },
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

  test.each<{ name: string; layers: Partial<Layers>; want: Partial<Settings> }>([
    {
      name: 'default only',
      layers: {},
      want: { duration: 28800, maxRestarts: 5, model: null, permissionMode: 'acceptEdits', backoff: 30 },
    },
    {
      name: 'file over default',
      layers: { file },
      want: { duration: 14400, maxRestarts: 3, model: 'sonnet', permissionMode: 'plan', backoff: 60 },
    },
    {
      name: 'env over file',
      layers: { file, env },
      want: { duration: 21600, maxRestarts: 7, model: 'opus', permissionMode: 'plan', backoff: 60 },
    },
    {
      name: 'flag over env',
      layers: { file, env, flags },
      want: { duration: 7200, maxRestarts: 9, model: 'opus', permissionMode: 'plan', backoff: 60 },
    },
    {
      name: 'flag over default',
      layers: { flags: { model: 'claude-opus-4-1' } },
      want: { model: 'claude-opus-4-1', duration: 28800 },
    },
    {
      name: 'an empty env value is unset',
      layers: { file, env: { OVERNIGHT_DURATION: '' } },
      want: { duration: 14400 },
    },
    {
      name: 'an undefined flag is unset',
      layers: { env, flags: { duration: undefined } },
      want: { duration: 21600 },
    },
  ])('$name → $want', ({ layers, want }) => {
    const { settings, problems } = resolve(layers);
    expect(problems).toEqual([]);
    expect(settings).toMatchObject(want);
  });

  test.each<{ variable: string; value: string; field: keyof Settings; want: string | number }>([
    { variable: 'OVERNIGHT_HOME', value: '/srv/runs', field: 'runsDir', want: '/srv/runs' },
    {
      variable: 'OVERNIGHT_CLAUDE',
      value: '/opt/claude/bin/claude',
      field: 'claude',
      want: '/opt/claude/bin/claude',
    },
    { variable: 'OVERNIGHT_PERMISSION_MODE', value: 'dontAsk', field: 'permissionMode', want: 'dontAsk' },
    { variable: 'OVERNIGHT_SYNTHESIS_BUDGET', value: '900s', field: 'synthesisBudget', want: 900 },
    { variable: 'OVERNIGHT_MIN_UPTIME', value: '0s', field: 'minUptime', want: 0 },
  ])('$variable=$value sets $field', ({ variable, value, field, want }) => {
    expect(resolve({ env: { [variable]: value } }).settings[field]).toBe(want);
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
  test.each<{ name: string; yaml: string; want: Partial<Settings> }>([
    { name: 'runs_dir with ~/', yaml: 'runs_dir: ~/nights\n', want: { runsDir: '/home/ada/nights' } },
    { name: 'runs_dir as "~"', yaml: 'runs_dir: "~"\n', want: { runsDir: HOME } },
    {
      name: 'runs_dir with ~ inside is literal',
      yaml: 'runs_dir: /data/~x\n',
      want: { runsDir: '/data/~x' },
    },
    { name: 'claude with ~/', yaml: 'claude: ~/bin/claude\n', want: { claude: '/home/ada/bin/claude' } },
    {
      name: 'allowed_tools as a YAML list',
      yaml: 'allowed_tools: [Read, "Bash(git log:*)", WebFetch]\n',
      want: { allowedTools: ['Read', 'Bash(git log:*)', 'WebFetch'] },
    },
    {
      name: 'allowed_tools as a block list',
      yaml: 'allowed_tools:\n  - Read\n  - Grep\n',
      want: { allowedTools: ['Read', 'Grep'] },
    },
    {
      name: 'allowed_tools as a comma string',
      yaml: 'allowed_tools: "Read, Write,,Grep "\n',
      want: { allowedTools: ['Read', 'Write', 'Grep'] },
    },
    {
      name: 'numbers as YAML numbers',
      yaml: 'max_restarts: 0\nmodel: 4\n',
      want: { maxRestarts: 0, model: '4' },
    },
    { name: 'model: null keeps the default', yaml: 'model: null\n', want: { model: null } },
    {
      name: 'zero is allowed where a wait may be off',
      yaml: 'hang_grace: 0s\nbackoff: 0s\nbackoff_max: 0m\nhealthy_after: 0h\nmin_uptime: 0s\n',
      want: { hangGrace: 0, backoff: 0, backoffMax: 0, healthyAfter: 0, minUptime: 0 },
    },
    {
      name: 'durations in any unit',
      yaml: 'duration: 1h30m\nsynthesis_budget: 45M\nstale_after: 1d\n',
      want: { duration: 5400, synthesisBudget: 2700, staleAfter: 86400 },
    },
    {
      name: 'the limits policies',
      yaml: 'transient_max: 30m\nlate_report: 0s\nallow_overage: true\nfallback_model: sonnet\n',
      want: { transientMax: 1800, lateReport: 0, allowOverage: true, fallbackModel: 'sonnet' },
    },
    { name: 'allow_overage as a word', yaml: 'allow_overage: "no"\n', want: { allowOverage: false } },
    {
      name: 'fallback_model: null keeps none',
      yaml: 'fallback_model: null\n',
      want: { fallbackModel: null },
    },
  ])('$name → $want', ({ yaml, want }) => {
    const { settings, problems } = resolve({ file: fromYaml(yaml) });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject(want);
  });

  test('env OVERNIGHT_ALLOW_OVERAGE=1 and a --allow-overage flag both turn it on', () => {
    expect(resolve({ env: { OVERNIGHT_ALLOW_OVERAGE: '1' } }).settings.allowOverage).toBe(true);
    expect(resolve({ flags: { allow_overage: 'true' } }).settings.allowOverage).toBe(true);
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
  // One bad value per key: the problem names the key and the value, says what is accepted, and the
  // default stands.
  test.each<{ key: string; value: unknown; want: RegExp }>([
    { key: 'runs_dir', value: '', want: /directory path/ },
    { key: 'runs_dir', value: ['/a', '/b'], want: /directory path/ },
    { key: 'claude', value: '   ', want: /command name or an absolute path/ },
    { key: 'model', value: 'opus 4', want: /model name or alias/ },
    { key: 'model', value: '-x', want: /model name/ },
    { key: 'duration', value: '0s', want: /greater than zero/ },
    { key: 'duration', value: '8 hours', want: /duration such as 45s, 30m, 8h/ },
    { key: 'duration', value: 8, want: /duration/ },
    { key: 'max_restarts', value: '-1', want: /whole number, 0 or more/ },
    { key: 'max_restarts', value: 2.5, want: /whole number/ },
    { key: 'max_restarts', value: 'five', want: /whole number/ },
    {
      key: 'permission_mode',
      value: 'yolo',
      want: /one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan/,
    },
    { key: 'allowed_tools', value: [], want: /list of tool names/ },
    { key: 'allowed_tools', value: ' , ', want: /list of tool names/ },
    { key: 'allowed_tools', value: ['Read', 3], want: /list of tool names/ },
    { key: 'synthesis_budget', value: '0m', want: /greater than zero/ },
    { key: 'stale_after', value: 'soon', want: /duration/ },
    { key: 'hang_grace', value: '-5m', want: /duration/ },
    { key: 'backoff', value: '30', want: /duration/ },
    { key: 'backoff_max', value: '10x', want: /duration/ },
    { key: 'healthy_after', value: true, want: /duration/ },
    { key: 'min_uptime', value: '1 m', want: /duration/ },
    { key: 'transient_max', value: 'a while', want: /duration/ },
    { key: 'late_report', value: '-1h', want: /duration/ },
    { key: 'allow_overage', value: 'maybe', want: /true or false/ },
    { key: 'fallback_model', value: 'sonnet 4', want: /model name or alias/ },
  ])('file $key = $value → $want', ({ key, value, want }) => {
    const { settings, problems } = resolve({ file: { path: FILE, data: { [key]: value } } });
    expect(problems).toHaveLength(1);
    const p = problems[0]!;
    expect(p).toMatchObject({ key, source: FILE, value });
    expect(p.message).toMatch(want);
    const line = describeProblem(p);
    expect(line).toContain(FILE);
    expect(line).toContain(key);
    expect(line).toContain(JSON.stringify(value));
    expect(line).toMatch(want);
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
    const { settings, problems } = resolve({ file: fromYaml('mystery_key: 3\nduration: 2h\n') });
    expect(settings.duration).toBe(7200);
    expect(problems).toHaveLength(1);
    const line = describeProblem(problems[0]!);
    expect(line).toContain(FILE);
    expect(line).toContain('"mystery_key"');
    for (const key of Object.keys(CONFIG_KEYS)) expect(line).toContain(key);
  });

  test('a mistyped key gets the key it meant, once, not the whole list', () => {
    const { settings, problems } = resolve({
      file: fromYaml('max_restart: 3\nstale_afer: 1h\nduration: 2h\n'),
      flags: { hang_grase: '1m' },
    });
    expect(settings.duration).toBe(7200);
    expect(settings.maxRestarts).toBe(5);
    expect(problems.map(describeProblem)).toEqual([
      `${FILE}: unknown key "max_restart"; did you mean "max_restarts"?`,
      `${FILE}: unknown key "stale_afer"; did you mean "stale_after"?`,
      '--hang-grase: unknown key "hang_grase"; did you mean "hang_grace"?',
    ]);
  });

  test('an unknown flag key is a problem too', () => {
    expect(describeProblem(resolve({ flags: { colour: 'red' } }).problems[0]!)).toMatch(
      /^--colour: unknown key "colour"; known keys: runs_dir, /,
    );
  });

  test.each<{ name: string; yaml: string }>([
    { name: 'a list', yaml: '- duration: 8h\n' },
    { name: 'a scalar', yaml: 'just some text\n' },
    { name: 'a number', yaml: '42\n' },
  ])('a file holding $name is not a mapping', ({ yaml }) => {
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

test.each<{ text: string; want: { maxTranscript: number } | { problem: unknown } }>([
  { text: '256MB', want: { maxTranscript: 256 * 1024 ** 2 } },
  { text: '1GB', want: { maxTranscript: 1024 ** 3 } },
  { text: '500k', want: { maxTranscript: 500 * 1024 } },
  { text: '1000', want: { maxTranscript: 1000 } },
  { text: 'lots', want: { problem: expect.stringMatching(/expected a size such as 256MB/) } },
])('max_transcript $text', ({ text, want }) => {
  const { settings, problems } = resolve({ env: { OVERNIGHT_MAX_TRANSCRIPT: text } });
  expect({ maxTranscript: settings.maxTranscript, problem: problems[0]?.message }).toMatchObject(want);
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
      'lateReport',
      'limitMargin',
      'maxRestarts',
      'maxTranscript',
      'minUptime',
      'staleAfter',
      'stopGrace',
      'transientMax',
      'synthesisBudget',
    ].sort(),
  );
});

describe('chosen keys', () => {
  test.each<{ name: string; over: Partial<Layers>; want: string[] }>([
    { name: 'nothing set', over: {}, want: [] },
    {
      name: 'a key in the file',
      over: { file: fromYaml('allowed_tools: [Read]\n') },
      want: ['allowed_tools'],
    },
    {
      name: 'a key in the environment',
      over: { env: { OVERNIGHT_PERMISSION_MODE: 'plan' } },
      want: ['permission_mode'],
    },
    { name: 'a flag', over: { flags: { allowed_tools: 'Read,Grep' } }, want: ['allowed_tools'] },
    { name: 'an unset flag', over: { flags: { allowed_tools: undefined } }, want: [] },
    { name: 'a bad value', over: { flags: { allowed_tools: '' } }, want: [] },
  ])('$name → $want', ({ over, want }) => {
    expect(resolve(over).chosen).toEqual(want);
  });
});
