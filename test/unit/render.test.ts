import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import { ANSI, NO_COLOR, renderLine } from '../../src/core/agent/render.js';
import { money } from '../../src/core/status/table.js';

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
    expect(render('result_auth_error')[0]).toBe(
      '■ result success (error) · 1 turns · $0.0000: Invalid API key · Fix external API key',
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
