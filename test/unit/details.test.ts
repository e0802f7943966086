import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { runDetails, type DetailsRow } from '../../src/core/status/details.js';

const WS = '/home/me/overnight-runs/2026-11-21-2315-survey-crdt';
const NOW = new Date('2026-11-22T03:15:00Z');
const UTC = localTime('UTC');

function row(over: Partial<DetailsRow> = {}): DetailsRow {
  return {
    id: '2026-11-21-2315-survey-crdt',
    task: 'Survey CRDT libraries for offline sync',
    workspace: WS,
    session: 'overnight-2026-11-21-2315-survey-crdt',
    state: 'running',
    startedAt: '2026-11-21T23:15:00Z',
    endsAt: '2026-11-22T07:15:00Z',
    restarts: 1,
    maxRestarts: 5,
    findings: 0,
    questions: 0,
    lastOutputAt: '2026-11-22T03:14:30Z',
    reason: '',
    costUsd: 1.234,
    sessions: 2,
    tokens: { input: 12345, output: 678 },
    ...over,
  };
}

const field = (lines: string[], name: string) => lines.find((l) => l.startsWith(`${name}:`))?.slice(12);

describe('runDetails', () => {
  test('a running run: times in words, what it spent, how to watch it', () => {
    const lines = runDetails(row(), { report: false }, NOW, UTC);
    expect(lines[0]).toBe('');
    expect(field(lines, 'task')).toBe('Survey CRDT libraries for offline sync');
    expect(field(lines, 'started')).toBe('Sat 21 Nov 2026, 23:15 (UTC+00:00)');
    expect(field(lines, 'ends')).toBe('Sun 22 Nov 2026, 07:15 (UTC+00:00) (4h left)');
    expect(field(lines, 'activity')).toBe('30s ago');
    expect(field(lines, 'sessions')).toBe('2, 1 restart of 5 allowed, $1.23 (12,345 tokens in, 678 out)');
    expect(field(lines, 'watch')).toBe('tmux attach -t overnight-2026-11-21-2315-survey-crdt');
    for (const absent of ['report', 'questions', 'findings', 'reason', 'denied'])
      expect(field(lines, absent), absent).toBeUndefined();
  });

  test('a finished run: where the report, the questions and the findings are; no tmux to attach to', () => {
    const lines = runDetails(
      row({ state: 'done', reason: 'REPORT.md written', questions: 3, findings: 1, restarts: 0 }),
      { report: true },
      NOW,
      UTC,
    );
    expect(field(lines, 'ends')).toBe('Sun 22 Nov 2026, 07:15 (UTC+00:00)');
    expect(field(lines, 'sessions')).toMatch(/^2, 0 restarts of 5 allowed/);
    expect(field(lines, 'report')).toBe(`${WS}/REPORT.md`);
    expect(field(lines, 'questions')).toBe(`3 open questions for you in ${WS}/questions.md`);
    expect(field(lines, 'findings')).toBe(`1 file in ${WS}/findings/`);
    expect(field(lines, 'reason')).toBe('REPORT.md written');
    expect(field(lines, 'watch')).toBeUndefined();
  });

  test('past its end, still writing the report; denied tools and warnings said too', () => {
    const denied = { count: 14, tools: [{ name: 'Bash', count: 14 }] };
    const lines = runDetails(
      row({
        state: 'synthesizing',
        endsAt: '2026-11-22T03:00:00Z',
        permissionDenials: denied,
        warnings: [{ code: 'wrong-conversation', text: 'resumed into a new conversation' }],
      }),
      { report: false },
      NOW,
      UTC,
    );
    expect(field(lines, 'ends')).toBe('Sun 22 Nov 2026, 03:00 (UTC+00:00) (time is up)');
    expect(field(lines, 'denied')).toMatch(/^14 tool calls denied by permissions \(Bash 14\)/);
    expect(field(lines, 'warning')).toBe('resumed into a new conversation');
  });

  test('a run whose files are unusable still says what it can', () => {
    const lines = runDetails(
      row({
        task: null,
        startedAt: null,
        endsAt: null,
        sessions: undefined,
        tokens: undefined,
        maxRestarts: null,
        state: 'waiting',
        reason: 'run.yaml is corrupt',
      }),
      { report: false },
      NOW,
      UTC,
    );
    expect(field(lines, 'task')).toBe('(unknown)');
    expect(field(lines, 'started')).toBe('?');
    expect(field(lines, 'ends')).toBe('?');
    expect(field(lines, 'sessions')).toBe('?, 1 restart of ? allowed');
    expect(field(lines, 'watch')).toBeUndefined(); // waiting: no agent, no tmux session to attach to
  });
});

describe('the task in the details', () => {
  test.each<{ name: string; over: Partial<DetailsRow>; want: string }>([
    { name: 'one line', over: {}, want: 'Survey CRDT libraries for offline sync' },
    {
      name: 'a brief of many lines (an older summary holds all of it)',
      over: { task: 'Night brief\n\n## Part one\nlots more' },
      want: `Night brief … (the whole task is in ${WS}/CLAUDE.md)`,
    },
    {
      name: 'a first line whose row says there is more',
      over: { task: 'Night brief', taskMore: true },
      want: `Night brief … (the whole task is in ${WS}/CLAUDE.md)`,
    },
    {
      name: 'a first line cut at 100 characters',
      over: { task: 'x'.repeat(150) },
      want: `${'x'.repeat(99)}… (the whole task is in ${WS}/CLAUDE.md)`,
    },
    {
      name: 'an escape sequence in it',
      over: { task: 'Red \u001b[31malert' },
      want: 'Red \\x1b[31malert',
    },
    { name: 'unknown', over: { task: null }, want: '(unknown)' },
  ])('$name → $want', ({ over, want }) => {
    expect(field(runDetails(row(over), { report: false }, NOW, UTC), 'task')).toBe(want);
  });
});

describe('runDetails: nights that continue each other', () => {
  test.each([
    { name: 'a follow-up', over: { continues: 'a' }, want: { continues: 'a', next: undefined } },
    {
      name: 'a continued run',
      over: { continuedBy: 'c' },
      want: { continues: undefined, next: 'continued by c' },
    },
    { name: 'a night of its own', over: {}, want: { continues: undefined, next: undefined } },
  ])('$name → $want', ({ over, want }) => {
    const lines = runDetails(row(over), { report: false }, NOW, UTC);
    expect({ continues: field(lines, 'continues'), next: field(lines, 'next night') }).toEqual(want);
  });
});
