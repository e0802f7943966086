import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import { ANSI, NO_COLOR, renderLine } from '../../src/core/agent/render.js';
import { localTime } from '../../src/core/local-time.js';
import { sessionNotes } from '../../src/core/status/log-notes.js';
import { money } from '../../src/core/status/table.js';
import { describeEntry } from '../../src/core/status/timeline-text.js';
import type { SessionEntry } from '../../src/core/status/timeline-types.js';

const samples = JSON.parse(
  readFileSync(new URL('../fixtures/claude-samples/stream-json-samples.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const render = (name: string) => renderLine(JSON.stringify(samples[name]), NO_COLOR);

describe('renderLine', () => {
  test.each<{ sample: string; want: string[] }>([
    { sample: 'assistant_text', want: ['MOCK: you said: hello mock\n; messages=2'] },
    { sample: 'assistant_tool_use', want: ['→ Write /spike/work/proj1/ae.txt'] },
    { sample: 'user_tool_result', want: [] },
    { sample: 'stream_event_delta', want: [] },
    { sample: 'system_status', want: [] },
  ])('$sample → $want', ({ sample, want }) => {
    expect(render(sample)).toEqual(want);
  });

  test('a denied tool call is shown as an error', () => {
    expect(render('user_tool_result_permission_denied')[0]).toMatch(
      /^ {2}✗ Claude requested permissions to write/,
    );
  });

  test('results carry subtype, turns and cost; errors their text', () => {
    expect(render('result_success')[0]).toMatch(/^■ result success · 1 turns · \$0\.0010: MOCK/);
    // The CLI says `success` for an auth error: it reads as an error.
    expect(render('result_auth_error')[0]).toMatch(
      /^■ error( \(API 401\))? · 1 turns · \$0\.0000: Invalid API key · Fix external API key$/,
    );
  });

  test('init, retries and a rejected limit get one line each', () => {
    expect(render('init')[0]).toMatch(/^session 8ad48b4b-.* · model claude-opus-4-8\[1m\]$/);
    expect(render('api_retry')[0]).toBe('API retry 1/1: 401 authentication_failed');
    expect(render('rate_limit_event_rejected')[0]).toMatch(/^usage limit \(five_hour\), resets 2026-/);
  });

  test('non-JSON lines pass through; colour only with the ANSI palette', () => {
    expect(renderLine('Error: boom', NO_COLOR)).toEqual(['Error: boom']);
    expect(renderLine('Error: boom', ANSI)[0]).toContain('\x1b[');
    expect(renderLine('', NO_COLOR)).toEqual([]);
  });
});

test.each<{ usd: number; want: string }>([
  { usd: 0, want: '$0.00' },
  { usd: 0.0016, want: '<$0.01' },
  { usd: 0.006, want: '$0.01' },
  { usd: 12.345, want: '$12.35' },
])('money($usd) → $want', ({ usd, want }) => {
  expect(money(usd)).toBe(want);
});

describe('logs: the night around the lines', () => {
  const UTC = localTime('UTC');
  const session = (n: number, mode: string, end: SessionEntry['end'], why = ''): SessionEntry => ({
    at: new Date(`2026-11-22T0${n}:00:00Z`),
    kind: 'session',
    session: n,
    mode,
    why,
    ...(mode === 'resume' ? { restart: { count: n - 1, max: 5 } } : {}),
    endedAt: null,
    seconds: 3600,
    costUsd: 0.1,
    apiRetries: 0,
    end,
  });
  const notes = sessionNotes([
    session(1, 'initial', {
      kind: 'error',
      text: 'killed by SIGKILL (exit 137), perhaps out of memory',
      exit: 137,
    }),
    session(2, 'resume', { kind: 'stopped', text: 'interrupted at the end time', exit: 0 }),
    session(3, 'synthesis', { kind: 'stopped', text: 'stopped: by user', exit: 0 }, 'end time reached'),
    { at: new Date('2026-11-22T03:30:00Z'), kind: 'interrupt', by: 'user', session: 3, reason: 'by user' },
  ]);

  test.each([
    {
      n: 1,
      want: { why: 'first session', ended: 'no result: killed by SIGKILL (exit 137), perhaps out of memory' },
    },
    {
      n: 2,
      want: {
        why: 'resumed (restart 1/5) after: killed by SIGKILL (exit 137), perhaps out of memory',
        ended: 'interrupted by overnight: interrupted at the end time',
      },
    },
    { n: 3, want: { why: 'the synthesis: end time reached', ended: 'stopped by you: stopped: by user' } },
  ])('session $n → $want.why', ({ n, want }) => {
    expect(notes.get(n)).toEqual(want);
  });

  test('a session header says when in local time and why', () => {
    const line = JSON.stringify({
      type: 'overnight_session',
      session: 2,
      mode: 'resume',
      at: '2026-11-22T02:00:05Z',
    });
    expect(renderLine(line, NO_COLOR, { clock: UTC, sessions: notes })).toEqual([
      '',
      '── session 2 · Sun 22 Nov 2026, 02:00:05 (UTC+00:00) · resumed (restart 1/5) after: killed by SIGKILL ' +
        '(exit 137), perhaps out of memory ──',
    ]);
    expect(renderLine(line, NO_COLOR, { clock: localTime('Asia/Tokyo') })[1]).toBe(
      '── session 2 · Sun 22 Nov 2026, 11:00:05 (UTC+09:00) · resume ──',
    );
  });
});

test('a fix session (verify_budget) is said as such in the timeline', () => {
  const fix: SessionEntry = {
    at: new Date('2026-11-22T07:00:00Z'),
    kind: 'session',
    session: 4,
    mode: 'fix',
    why: 'the check shows 1 new failure',
    endedAt: null,
    seconds: 600,
    costUsd: 0.2,
    apiRetries: 0,
    end: { kind: 'ok', text: 'ended its turn', exit: 0 },
  };
  expect(describeEntry(fix, localTime('UTC'))).toBe(
    'session 4, a fix for what the check found, started: the check shows 1 new failure → 10m, $0.20, ended its turn',
  );
});
