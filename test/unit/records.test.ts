import { describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';

import {
  formatRestart,
  parseExitRecord,
  parsePidRecord,
  parseRestartLog,
  parseSession,
  serializeSession,
  specFromDoc,
  specToDoc,
} from '../../src/core/run/records.js';
import type { RestartEntry, RunSpec } from '../../src/core/run/types.js';

const AT = new Date('2026-11-22T01:02:03.456Z');

describe('restart.log', () => {
  test.each<[RestartEntry, string]>([
    [
      { at: AT, mode: 'resume', exit: 1, uptime: 42, reason: 'agent ended (exit 1)' },
      '2026-11-22T01:02:03.456Z\tresume\texit=1\tuptime=42s\tagent ended (exit 1)\n',
    ],
    [
      { at: AT, mode: 'synthesis', exit: 137, uptime: 3600, reason: 'end time reached' },
      '2026-11-22T01:02:03.456Z\tsynthesis\texit=137\tuptime=3600s\tend time reached\n',
    ],
    [
      { at: AT, mode: 'initial', exit: null, uptime: null, reason: 'first session was never started' },
      '2026-11-22T01:02:03.456Z\tinitial\texit=-\tuptime=-\tfirst session was never started\n',
    ],
    [
      { at: AT, mode: 'continue', exit: 0, uptime: 7, reason: '' },
      '2026-11-22T01:02:03.456Z\tcontinue\texit=0\tuptime=7s\t\n',
    ],
  ])('format %j', (entry, line) => {
    expect(formatRestart(entry)).toBe(line);
    expect(parseRestartLog(line)).toEqual([entry]);
  });

  test('a whole log round-trips', () => {
    const entries: RestartEntry[] = [
      {
        at: new Date('2026-11-22T00:10:00Z'),
        mode: 'resume',
        exit: 1,
        uptime: 600,
        reason: 'agent ended (exit 1)',
      },
      {
        at: new Date('2026-11-22T00:20:00Z'),
        mode: 'resume',
        exit: 137,
        uptime: null,
        reason: 'agent ended (killed by SIGKILL (exit 137))',
      },
      {
        at: new Date('2026-11-22T07:16:00Z'),
        mode: 'synthesis',
        exit: null,
        uptime: 25000,
        reason: 'end time reached (no exit status recorded)',
      },
    ];
    expect(parseRestartLog(entries.map(formatRestart).join(''))).toEqual(entries);
  });

  test.each([
    ['a tab', 'a\tb', 'a b'],
    ['newlines', 'line one\nline two\n\nline three', 'line one line two line three'],
    ['mixed runs', 'x\t\n\ty', 'x y'],
  ])('%s in the reason is flattened to one line', (_name, reason, flat) => {
    const line = formatRestart({ at: AT, mode: 'resume', exit: 2, uptime: 9, reason });
    expect(line.split('\n')).toHaveLength(2);
    expect(line.slice(0, -1).split('\t')).toHaveLength(5);
    expect(parseRestartLog(line)).toEqual([{ at: AT, mode: 'resume', exit: 2, uptime: 9, reason: flat }]);
  });

  const good = formatRestart({ at: AT, mode: 'resume', exit: 1, uptime: 5, reason: 'agent ended (exit 1)' });
  test.each([
    ['in the time', '2026-11-22T01:0'],
    ['after the time', '2026-11-22T01:02:03.456Z'],
    ['after the first tab', '2026-11-22T01:02:03.456Z\t'],
    ['in the mode', '2026-11-22T01:02:03.456Z\tres'],
    ['after the mode', '2026-11-22T01:02:03.456Z\tresume\t'],
  ])('a last line torn %s is skipped', (_name, torn) => {
    expect(parseRestartLog(good + good + torn)).toHaveLength(2);
  });

  test.each([
    ['empty', ''],
    ['blank lines', '\n\n'],
    ['garbage', 'hello world\nnot\ta\tlog\n'],
    ['a bad date', 'yesterday\tresume\texit=1\tx\n'],
    ['an unknown mode', '2026-11-22T01:02:03.456Z\trestart\texit=1\tx\n'],
  ])('%s → no entries', (_name, text) => {
    expect(parseRestartLog(text)).toEqual([]);
  });

  test('unreadable lines among good ones are skipped, the rest kept in order', () => {
    const text = `junk\n${good}\n\r\n${formatRestart({ at: AT, mode: 'synthesis', exit: 0, uptime: null, reason: 'end' })}`;
    expect(parseRestartLog(text).map((e) => e.mode)).toEqual(['resume', 'synthesis']);
  });
});

describe('parseExitRecord', () => {
  test.each([
    ['0 1 1795309200', 1, { code: 0, at: new Date(1795309200 * 1000) }],
    ['137 3 1795309200\n', 3, { code: 137, at: new Date(1795309200 * 1000) }],
    ['  1   2   1795309200  ', 2, { code: 1, at: new Date(1795309200 * 1000) }],
    ['1 2 1795309200', 3, null], // an older session's record
    ['1 3 1795309200', 2, null],
    ['', 1, null],
    ['1 1', 1, null],
    ['x 1 1795309200', 1, null],
    ['1 1 1795309200 extra', 1, null],
    ['-1 1 1795309200', 1, null],
  ])('%j for session %i', (text, session, want) => {
    expect(parseExitRecord(text, session)).toEqual(want);
  });
});

describe('parsePidRecord', () => {
  test.each([
    ['4242 Sat Nov 21 23:15:02 2026', { pid: 4242, startTime: 'Sat Nov 21 23:15:02 2026' }],
    ['4242 123456789\n', { pid: 4242, startTime: '123456789' }],
    ['  77  start  ', { pid: 77, startTime: 'start' }],
    ['4242', null],
    ['', null],
    ['pid 123', null],
    ['-5 x', null],
  ])('%j', (text, want) => {
    expect(parsePidRecord(text)).toEqual(want);
  });
});

describe('session.json', () => {
  test.each([
    { n: 1, mode: 'initial' as const, startedAt: new Date('2026-11-21T23:15:00Z') },
    { n: 4, mode: 'resume' as const, startedAt: AT },
    { n: 7, mode: 'synthesis' as const, startedAt: new Date('2026-11-22T07:15:00.001Z') },
  ])('round trip $mode #$n', (s) => {
    const text = serializeSession(s);
    expect(text.endsWith('\n')).toBe(true);
    expect(parseSession(text)).toEqual(s);
  });

  test.each([
    ['empty', ''],
    ['truncated JSON', '{"n":1,"mode":"init'],
    ['not an object', '"hello"'],
    ['null', 'null'],
    ['n as a string', '{"n":"1","mode":"initial","startedAt":"2026-11-21T23:15:00.000Z"}'],
    ['unknown mode', '{"n":1,"mode":"restart","startedAt":"2026-11-21T23:15:00.000Z"}'],
    ['bad date', '{"n":1,"mode":"initial","startedAt":"soon"}'],
    ['missing date', '{"n":1,"mode":"initial"}'],
  ])('%s → throws', (_name, text) => {
    expect(() => parseSession(text)).toThrow();
  });
});

function spec(): RunSpec {
  return {
    id: '2026-11-21-2315-survey-crdt',
    task: 'Survey CRDT libraries\nwith "quotes", $(subshells), `backticks` and: colons',
    model: 'opus',
    startedAt: new Date('2026-11-21T23:15:00Z'),
    endsAt: new Date('2026-11-22T07:15:00Z'),
    sessionId: '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a',
    permissionMode: 'acceptEdits',
    allowedTools: ['Read', 'Bash(git log:*)'],
    limits: {
      maxRestarts: 5,
      synthesisBudget: 1800,
      staleAfter: 1800,
      hangGrace: 300,
      backoff: 30,
      backoffMax: 600,
      healthyAfter: 600,
      minUptime: 60,
      limitMargin: 120,
      maxTranscript: 1000,
      stopGrace: 3,
    },
    maxCost: 12.5,
    paths: {
      claude: '/usr/bin/claude',
      tmux: '/usr/bin/tmux',
      node: '/usr/bin/node',
      cli: '/opt/overnight/bin/overnight.js',
      tmuxSocket: '/tmp/tmux-1000/default',
    },
  };
}

describe('run.yaml', () => {
  test('specToDoc uses snake_case keys, ISO times, seconds', () => {
    expect(specToDoc(spec())).toMatchObject({
      started_at: '2026-11-21T23:15:00.000Z',
      ends_at: '2026-11-22T07:15:00.000Z',
      session_id: '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a',
      permission_mode: 'acceptEdits',
      allowed_tools: ['Read', 'Bash(git log:*)'],
      limits_seconds: { max_restarts: 5, synthesis_budget: 1800, min_uptime: 60 },
      paths: { tmux: '/usr/bin/tmux' },
    });
  });

  test.each([
    ['as given', spec()],
    ['with no model', { ...spec(), model: null }],
    ['with an empty task and no tools', { ...spec(), task: '', allowedTools: [] }],
  ])('round trip %s, also through YAML text', (_name, s) => {
    expect(specFromDoc(specToDoc(s))).toEqual(s);
    expect(specFromDoc(parse(stringify(specToDoc(s))))).toEqual(s);
  });

  type Doc = Record<string, Record<string, unknown>>;
  test.each<[string, (d: Doc) => void, string]>([
    ['id', (d) => delete d.id, 'id'],
    ['task', (d) => delete d.task, 'task'],
    ['started_at', (d) => delete d.started_at, 'started_at'],
    ['ends_at invalid', (d) => void ((d as Record<string, unknown>).ends_at = 'tomorrow'), 'ends_at'],
    ['session_id', (d) => delete d.session_id, 'session_id'],
    ['permission_mode', (d) => delete d.permission_mode, 'permission_mode'],
    ['allowed_tools', (d) => delete d.allowed_tools, 'allowed_tools'],
    [
      'allowed_tools with a number',
      (d) => void ((d as Record<string, unknown>).allowed_tools = ['Read', 1]),
      'allowed_tools',
    ],
    ['model empty', (d) => void ((d as Record<string, unknown>).model = ''), 'model'],
    ['limits_seconds', (d) => delete d.limits_seconds, 'limits_seconds'],
    ['limits_seconds.backoff', (d) => delete d.limits_seconds!.backoff, 'limits_seconds.backoff'],
    [
      'limits_seconds.max_restarts negative',
      (d) => void (d.limits_seconds!.max_restarts = -1),
      'limits_seconds.max_restarts',
    ],
    [
      'limits_seconds.min_uptime as text',
      (d) => void (d.limits_seconds!.min_uptime = '60s'),
      'limits_seconds.min_uptime',
    ],
    ['paths', (d) => delete d.paths, 'paths'],
    ['paths.tmux', (d) => delete d.paths!.tmux, 'tmux'],
    ['paths.claude', (d) => void (d.paths!.claude = ''), 'claude'],
  ])('missing or invalid %s throws naming it', (_name, damage, field) => {
    const doc = structuredClone(specToDoc(spec())) as Doc;
    damage(doc);
    expect(() => specFromDoc(doc)).toThrow(`${field} is missing or invalid`);
  });

  test.each([null, undefined, 'id: x', 42])('%j is not a run document', (doc) => {
    expect(() => specFromDoc(doc)).toThrow(/missing or invalid/);
  });
});

test('restart.log lines written before the uptime column are still read', () => {
  expect(parseRestartLog('2026-11-22T01:02:03.456Z\tresume\texit=1\tagent ended (exit 1)\n')).toEqual([
    {
      at: new Date('2026-11-22T01:02:03.456Z'),
      mode: 'resume',
      exit: 1,
      uptime: null,
      reason: 'agent ended (exit 1)',
    },
  ]);
});

test('a run.yaml written before the tmux socket was recorded reads as the default server', () => {
  const doc = specToDoc(spec()) as { paths: Record<string, unknown> };
  delete doc.paths.tmux_socket;
  expect(specFromDoc(doc).paths.tmuxSocket).toBeNull();
});
