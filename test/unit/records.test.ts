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
import type { ExitRecord, RestartEntry, RunSpec, SessionRecord } from '../../src/core/run/types.js';
import { REPO, spec } from './builders.js';

const AT = new Date('2026-11-22T01:02:03.456Z');

describe('restart.log', () => {
  test.each<{ entry: RestartEntry; want: string }>([
    {
      entry: { at: AT, mode: 'resume', exit: 1, uptime: 42, reason: 'agent ended (exit 1)' },
      want: '2026-11-22T01:02:03.456Z\tresume\texit=1\tuptime=42s\tagent ended (exit 1)\n',
    },
    {
      entry: { at: AT, mode: 'synthesis', exit: 137, uptime: 3600, reason: 'end time reached' },
      want: '2026-11-22T01:02:03.456Z\tsynthesis\texit=137\tuptime=3600s\tend time reached\n',
    },
    {
      entry: { at: AT, mode: 'initial', exit: null, uptime: null, reason: 'first session was never started' },
      want: '2026-11-22T01:02:03.456Z\tinitial\texit=-\tuptime=-\tfirst session was never started\n',
    },
    {
      entry: { at: AT, mode: 'continue', exit: 0, uptime: 7, reason: '' },
      want: '2026-11-22T01:02:03.456Z\tcontinue\texit=0\tuptime=7s\t\n',
    },
  ])('a $entry.mode entry, exit $entry.exit: one line, read back as it was', ({ entry, want }) => {
    expect(formatRestart(entry)).toBe(want);
    expect(parseRestartLog(want)).toEqual([entry]);
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

  test.each<{ name: string; reason: string; want: string }>([
    { name: 'a tab', reason: 'a\tb', want: 'a b' },
    { name: 'newlines', reason: 'line one\nline two\n\nline three', want: 'line one line two line three' },
    { name: 'mixed runs', reason: 'x\t\n\ty', want: 'x y' },
  ])('$name in the reason is flattened to one line: $want', ({ reason, want }) => {
    const line = formatRestart({ at: AT, mode: 'resume', exit: 2, uptime: 9, reason });
    expect(line.split('\n')).toHaveLength(2);
    expect(line.slice(0, -1).split('\t')).toHaveLength(5);
    expect(parseRestartLog(line)).toEqual([{ at: AT, mode: 'resume', exit: 2, uptime: 9, reason: want }]);
  });

  const good = formatRestart({ at: AT, mode: 'resume', exit: 1, uptime: 5, reason: 'agent ended (exit 1)' });
  test.each<{ name: string; torn: string }>([
    { name: 'in the time', torn: '2026-11-22T01:0' },
    { name: 'after the time', torn: '2026-11-22T01:02:03.456Z' },
    { name: 'after the first tab', torn: '2026-11-22T01:02:03.456Z\t' },
    { name: 'in the mode', torn: '2026-11-22T01:02:03.456Z\tres' },
    { name: 'after the mode', torn: '2026-11-22T01:02:03.456Z\tresume\t' },
  ])('a last line torn $name is skipped', ({ torn }) => {
    expect(parseRestartLog(good + good + torn)).toHaveLength(2);
  });

  test.each<{ name: string; text: string }>([
    { name: 'empty', text: '' },
    { name: 'blank lines', text: '\n\n' },
    { name: 'garbage', text: 'hello world\nnot\ta\tlog\n' },
    { name: 'a bad date', text: 'yesterday\tresume\texit=1\tx\n' },
    { name: 'an unknown mode', text: '2026-11-22T01:02:03.456Z\trestart\texit=1\tx\n' },
  ])('$name → no entries', ({ text }) => {
    expect(parseRestartLog(text)).toEqual([]);
  });

  test('unreadable lines among good ones are skipped, the rest kept in order', () => {
    const text = `junk\n${good}\n\r\n${formatRestart({ at: AT, mode: 'synthesis', exit: 0, uptime: null, reason: 'end' })}`;
    expect(parseRestartLog(text).map((e) => e.mode)).toEqual(['resume', 'synthesis']);
  });
});

describe('parseExitRecord', () => {
  test.each<{ text: string; session: number; want: ExitRecord | null }>([
    { text: '0 1 1795309200', session: 1, want: { code: 0, at: new Date(1795309200 * 1000) } },
    { text: '137 3 1795309200\n', session: 3, want: { code: 137, at: new Date(1795309200 * 1000) } },
    { text: '  1   2   1795309200  ', session: 2, want: { code: 1, at: new Date(1795309200 * 1000) } },
    { text: '1 2 1795309200', session: 3, want: null }, // an older session's record
    { text: '1 3 1795309200', session: 2, want: null },
    { text: '', session: 1, want: null },
    { text: '1 1', session: 1, want: null },
    { text: 'x 1 1795309200', session: 1, want: null },
    { text: '1 1 1795309200 extra', session: 1, want: null },
    { text: '-1 1 1795309200', session: 1, want: null },
  ])('$text for session $session → $want', ({ text, session, want }) => {
    expect(parseExitRecord(text, session)).toEqual(want);
  });
});

describe('parsePidRecord', () => {
  test.each<{ text: string; want: ReturnType<typeof parsePidRecord> }>([
    { text: '4242 Sat Nov 21 23:15:02 2026', want: { pid: 4242, startTime: 'Sat Nov 21 23:15:02 2026' } },
    { text: '4242 123456789\n', want: { pid: 4242, startTime: '123456789' } },
    { text: '  77  start  ', want: { pid: 77, startTime: 'start' } },
    { text: '4242', want: null },
    { text: '', want: null },
    { text: 'pid 123', want: null },
    { text: '-5 x', want: null },
  ])('$text → $want', ({ text, want }) => {
    expect(parsePidRecord(text)).toEqual(want);
  });
});

describe('session.json', () => {
  test.each<SessionRecord>([
    { n: 1, mode: 'initial', startedAt: new Date('2026-11-21T23:15:00Z') },
    { n: 4, mode: 'resume', startedAt: AT },
    { n: 7, mode: 'synthesis', startedAt: new Date('2026-11-22T07:15:00.001Z') },
    { n: 5, mode: 'resume', startedAt: AT, fresh: true },
    {
      n: 8,
      mode: 'synthesis',
      startedAt: new Date('2026-11-22T08:10:00Z'),
      deadline: new Date('2026-11-22T08:40:00Z'),
    },
  ])('round trip $mode #$n', (s) => {
    const text = serializeSession(s);
    expect(text.endsWith('\n')).toBe(true);
    expect(parseSession(text)).toEqual(s);
  });

  test.each<{ name: string; text: string }>([
    { name: 'empty', text: '' },
    { name: 'truncated JSON', text: '{"n":1,"mode":"init' },
    { name: 'not an object', text: '"hello"' },
    { name: 'null', text: 'null' },
    { name: 'n as a string', text: '{"n":"1","mode":"initial","startedAt":"2026-11-21T23:15:00.000Z"}' },
    { name: 'unknown mode', text: '{"n":1,"mode":"restart","startedAt":"2026-11-21T23:15:00.000Z"}' },
    { name: 'bad date', text: '{"n":1,"mode":"initial","startedAt":"soon"}' },
    { name: 'missing date', text: '{"n":1,"mode":"initial"}' },
  ])('$name → throws', ({ text }) => {
    expect(() => parseSession(text)).toThrow();
  });
});

/** A run as stored, every field set, with text that YAML must quote. */
const STORED: RunSpec = spec({
  task: 'Survey CRDT libraries\nwith "quotes", $(subshells), `backticks` and: colons',
  model: 'opus',
  allowedTools: ['Read', 'Bash(git log:*)'],
  limits: {
    ...spec().limits,
    limitMargin: 120,
    maxTranscript: 1000,
    stopGrace: 3,
    transientMax: 60,
    lateReport: 0,
  },
  maxCost: 12.5,
  allowOverage: true,
  fallbackModel: 'sonnet',
  paths: { ...spec().paths, tmuxSocket: '/tmp/tmux-1000/default' },
});

describe('run.yaml', () => {
  test('specToDoc uses snake_case keys, ISO times, seconds', () => {
    expect(specToDoc(STORED)).toMatchObject({
      started_at: '2026-11-21T23:15:00.000Z',
      ends_at: '2026-11-22T07:15:00.000Z',
      session_id: '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a',
      permission_mode: 'acceptEdits',
      allowed_tools: ['Read', 'Bash(git log:*)'],
      limits_seconds: { max_restarts: 5, synthesis_budget: 1800, min_uptime: 60 },
      paths: { tmux: '/usr/bin/tmux' },
    });
  });

  test.each<{ name: string; spec: RunSpec }>([
    { name: 'as given', spec: STORED },
    { name: 'with no model', spec: { ...STORED, model: null } },
    { name: 'with an empty task and no tools', spec: { ...STORED, task: '', allowedTools: [] } },
    { name: 'with a name and a repository', spec: { ...STORED, name: 'Nuit blanche 夜', repo: REPO } },
    {
      name: 'with a 1 MB task of every kind of line',
      spec: { ...STORED, task: 'Brief\n\t"x": \'y\' # z\n  - item\r\n\u001b[31m'.repeat(30_000) },
    },
  ])('round trip $name, also through YAML text', ({ spec: s }) => {
    expect(specFromDoc(specToDoc(s))).toEqual(s);
    expect(specFromDoc(parse(stringify(specToDoc(s))))).toEqual(s);
  });

  type Doc = Record<string, Record<string, unknown>>;
  test.each<{ name: string; damage: (d: Doc) => void; want: string }>([
    { name: 'id', damage: (d) => delete d.id, want: 'id' },
    { name: 'task', damage: (d) => delete d.task, want: 'task' },
    { name: 'started_at', damage: (d) => delete d.started_at, want: 'started_at' },
    {
      name: 'ends_at invalid',
      damage: (d) => void ((d as Record<string, unknown>).ends_at = 'tomorrow'),
      want: 'ends_at',
    },
    { name: 'session_id', damage: (d) => delete d.session_id, want: 'session_id' },
    { name: 'permission_mode', damage: (d) => delete d.permission_mode, want: 'permission_mode' },
    { name: 'allowed_tools', damage: (d) => delete d.allowed_tools, want: 'allowed_tools' },
    {
      name: 'allowed_tools with a number',
      damage: (d) => void ((d as Record<string, unknown>).allowed_tools = ['Read', 1]),
      want: 'allowed_tools',
    },
    { name: 'model empty', damage: (d) => void ((d as Record<string, unknown>).model = ''), want: 'model' },
    { name: 'limits_seconds', damage: (d) => delete d.limits_seconds, want: 'limits_seconds' },
    {
      name: 'limits_seconds.backoff',
      damage: (d) => delete d.limits_seconds!.backoff,
      want: 'limits_seconds.backoff',
    },
    {
      name: 'limits_seconds.max_restarts negative',
      damage: (d) => void (d.limits_seconds!.max_restarts = -1),
      want: 'limits_seconds.max_restarts',
    },
    {
      name: 'limits_seconds.min_uptime as text',
      damage: (d) => void (d.limits_seconds!.min_uptime = '60s'),
      want: 'limits_seconds.min_uptime',
    },
    { name: 'paths', damage: (d) => delete d.paths, want: 'paths' },
    { name: 'paths.tmux', damage: (d) => delete d.paths!.tmux, want: 'tmux' },
    { name: 'paths.claude', damage: (d) => void (d.paths!.claude = ''), want: 'claude' },
  ])('missing or invalid $name throws naming $want', ({ damage, want }) => {
    const doc = structuredClone(specToDoc(STORED)) as Doc;
    damage(doc);
    expect(() => specFromDoc(doc)).toThrow(`${want} is missing or invalid`);
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

test('a run.yaml written before the limits policies gets their defaults: 2h, 6h, no overage, no fallback', () => {
  const doc = specToDoc(STORED) as Record<string, unknown> & { limits_seconds: Record<string, unknown> };
  delete doc.limits_seconds.transient_max;
  delete doc.limits_seconds.late_report;
  delete doc.allow_overage;
  delete doc.fallback_model;
  const read = specFromDoc(doc);
  expect(read.limits).toMatchObject({ transientMax: 7200, lateReport: 21600 });
  expect(read).toMatchObject({ allowOverage: false, fallbackModel: null });
  expect(specToDoc(STORED)).toMatchObject({
    allow_overage: true,
    fallback_model: 'sonnet',
    limits_seconds: { transient_max: 60, late_report: 0 },
  });
});

test('a run.yaml written before names and repositories were recorded reads as a plain run, unnamed', () => {
  const doc = specToDoc(STORED) as Record<string, unknown>;
  delete doc.name;
  delete doc.repo;
  expect(specFromDoc(doc)).toMatchObject({ name: null, repo: null });
});

test.each<{ name: string; repo: unknown; want: string }>([
  { name: 'repo.worktree missing', repo: { ...REPO, worktree: undefined }, want: 'repo.worktree' },
  { name: 'repo.base empty', repo: { ...REPO, base: '' }, want: 'repo.base' },
  { name: 'repo as text', repo: '/home/me/proj', want: 'repo' },
])('a run.yaml with $name throws naming $want', ({ repo, want }) => {
  const doc = { ...specToDoc(STORED), repo };
  expect(() => specFromDoc(doc)).toThrow(`${want} is missing or invalid`);
});

test('a run.yaml written before the tmux socket was recorded reads as the default server', () => {
  const doc = specToDoc(STORED) as { paths: Record<string, unknown> };
  delete doc.paths.tmux_socket;
  expect(specFromDoc(doc).paths.tmuxSocket).toBeNull();
});

describe('records read back are untrusted (issue 17)', () => {
  const session = (over: Record<string, unknown>) =>
    JSON.stringify({ n: 2, mode: 'resume', startedAt: '2026-11-21T23:15:00.000Z', ...over });

  test.each<{ name: string; text: string }>([
    { name: 'n 2^53-1', text: session({ n: 9007199254740991 }) },
    { name: 'n 0', text: session({ n: 0 }) },
    { name: 'n 1.5', text: session({ n: 1.5 }) },
    { name: 'a start in 9999', text: session({ startedAt: '9999-01-01T00:00:00Z' }) },
    { name: 'a start in 1970', text: session({ startedAt: '1970-01-01T00:00:00Z' }) },
    { name: 'null', text: 'null' },
  ])('session.json with $name is refused', ({ text }) => {
    expect(() => parseSession(text)).toThrow();
  });

  test('a deadline out of range is dropped', () => {
    expect(parseSession(session({ deadline: '9999-01-01T00:00:00Z' })).deadline).toBeUndefined();
  });

  test.each<{ name: string; text: string; want: ReturnType<typeof parsePidRecord> }>([
    {
      name: 'a plain record',
      text: '4242 Sat Nov 21 23:15:00 2026\n',
      want: { pid: 4242, startTime: 'Sat Nov 21 23:15:00 2026' },
    },
    { name: 'a pid past 2^31', text: '99999999999 x', want: null },
    { name: 'pid 0', text: '0 x', want: null },
    { name: 'no start time', text: '4242', want: null },
    { name: '1 MB of spaces inside', text: `4242${' '.repeat(1 << 20)}x`, want: null },
    { name: '1 MB of digits', text: '9'.repeat(1 << 20), want: null },
  ])('pid record: $name', ({ text, want }) => {
    expect(parsePidRecord(text)).toEqual(want);
  });

  test.each<{ name: string; text: string }>([
    { name: 'an exit in 1970', text: '0 2 0' },
    { name: 'an exit in the year 33658', text: '0 2 999999999999' },
    { name: 'a status of 1 MB of digits', text: `${'1'.repeat(1 << 20)} 2 1795309200` },
    { name: '1 MB of spaces', text: ' '.repeat(1 << 20) },
  ])('exit record: $name is none', ({ text }) => {
    expect(parseExitRecord(text, 2)).toBeNull();
  });

  test('restart.log lines out of range are skipped, long reasons cut', () => {
    const text = [
      '1970-01-01T00:00:00.000Z\tresume\texit=1\tuptime=5s\tcrash',
      '9999-01-01T00:00:00.000Z\tresume\texit=1\tuptime=5s\tcrash',
      `2026-11-21T23:30:00.000Z\tresume\texit=${'9'.repeat(400)}\tuptime=5s\t${'x'.repeat(1 << 20)}`,
      ' '.repeat(1 << 20),
    ].join('\n');
    const got = parseRestartLog(text);
    expect(got).toHaveLength(1);
    expect(got[0]?.exit).toBeNull();
    expect(got[0]?.reason.length).toBeLessThanOrEqual(4096);
  });
});

describe('repo.subdir: where below the top the agent works', () => {
  test('round-trips, and a plain repository run has none', () => {
    const withSub = { ...spec(), repo: { ...REPO, subdir: 'packages/lib' } };
    expect(specFromDoc(parse(stringify(specToDoc(withSub)))).repo?.subdir).toBe('packages/lib');
    expect(specToDoc({ ...spec(), repo: REPO }).repo).not.toHaveProperty('subdir');
  });

  test.each(['', '/etc', '../out', 'lib/../..', 'a//b', './lib', 'lib\nx', 7])(
    '%j is refused: outside the repository, or not a path',
    (subdir) => {
      const doc = specToDoc({ ...spec(), repo: REPO }) as { repo: Record<string, unknown> };
      doc.repo.subdir = subdir;
      expect(() => specFromDoc(doc)).toThrow(/repo\.subdir is missing or invalid/);
    },
  );

  test('the session record keeps whether it forked the earlier conversation', () => {
    const s: SessionRecord = {
      n: 1,
      mode: 'initial',
      startedAt: new Date('2026-11-21T23:15:00Z'),
      forked: true,
    };
    expect(parseSession(serializeSession(s))).toEqual(s);
  });
});
