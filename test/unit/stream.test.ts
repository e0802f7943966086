import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import {
  authFailuresInARow,
  failedResumesInARow,
  isAuthFailure,
  summarizeUsage,
  wrongConversations,
} from '../../src/core/agent/sessions.js';
import { parseStream } from '../../src/core/agent/stream.js';
import { classifyEnd } from '../../src/core/supervise/classify.js';
import { classifyLimit } from '../../src/core/supervise/limits.js';

// Real events captured from Claude Code 2.1.x.
const samples = JSON.parse(
  readFileSync(new URL('../fixtures/claude-samples/stream-json-samples.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const line = (name: string) => JSON.stringify(samples[name]);
const marker = (n: number, mode: string) =>
  JSON.stringify({ type: 'overnight_session', session: n, mode, at: '2026-11-21T23:15:00.000Z' });
const log = (...lines: string[]) => lines.join('\n') + '\n';

describe('parseStream', () => {
  test('one record per session, split at overnight markers', () => {
    const sessions = parseStream(
      log(
        marker(1, 'initial'),
        line('init'),
        line('assistant_text'),
        line('result_success'),
        marker(2, 'resume'),
        line('init'),
        line('result_auth_error'),
      ),
    );
    expect(sessions.map((s) => [s.n, s.mode])).toEqual([
      [1, 'initial'],
      [2, 'resume'],
    ]);
    expect(sessions[0]).toMatchObject({
      sessionId: '8ad48b4b-d1b0-4431-93dd-894bd2fa9114',
      model: 'claude-opus-4-8[1m]',
    });
    expect(sessions[0]?.result).toMatchObject({
      subtype: 'success',
      isError: false,
      costUsd: 0.001,
      numTurns: 1,
      outputTokens: 20,
    });
  });

  test('an auth error says success but is_error, with the API status and text', () => {
    const [s] = parseStream(
      log(marker(1, 'initial'), line('api_retry'), line('assistant_auth_error'), line('result_auth_error')),
    );
    expect(s?.apiRetries).toBe(1);
    expect(s?.result).toMatchObject({
      subtype: 'success',
      isError: true,
      apiErrorStatus: 401,
      text: 'Invalid API key · Fix external API key',
    });
  });

  test('the last rate_limit_event is kept with its reset time', () => {
    const [s] = parseStream(
      log(marker(1, 'initial'), line('rate_limit_event_rejected'), line('result_usage_limit')),
    );
    expect(s?.rateLimit).toEqual({
      status: 'rejected',
      resetsAt: new Date(1795259134 * 1000),
      type: 'five_hour',
      usingOverage: false,
    });
    expect(s?.result).toMatchObject({ isError: true, apiErrorStatus: 429 });
  });

  test('a session without a result event has result null (an interrupted session, not a success)', () => {
    const [s] = parseStream(log(marker(1, 'initial'), line('init'), line('assistant_text')));
    expect(s?.result).toBeNull();
  });

  test('the errors array stands in for a missing result text', () => {
    const [s] = parseStream(log(line('result_error_during_execution_resume_not_found')));
    expect(s?.result?.subtype).toBe('error_during_execution');
    expect(s?.result?.text).toMatch(/No conversation found/);
  });

  test('torn lines, unknown events and crash traces are tolerated; traces are kept', () => {
    const torn = line('result_success').slice(0, 40);
    const sessions = parseStream(
      log(
        marker(1, 'initial'),
        line('init'),
        '{"type":"brand_new_event","x":1}',
        'Error: boom',
        '    at main (cli.js:1:1)',
        torn,
      ),
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.result).toBeNull();
    expect(sessions[0]?.otherLines).toEqual(['Error: boom', '    at main (cli.js:1:1)']);
  });

  test('tool calls are counted; permission denials keep their tool names', () => {
    const [s] = parseStream(
      log(
        marker(1, 'initial'),
        line('assistant_tool_use'),
        line('user_tool_result_permission_denied'),
        line('result_with_permission_denials'),
      ),
    );
    expect(s?.toolCalls).toBe(1);
    expect(s?.result?.denied.length).toBeGreaterThan(0);
  });

  test('output before any marker still forms a session', () => {
    expect(parseStream(log(line('init'), line('result_success')))).toHaveLength(1);
  });
});

describe('summarizeUsage', () => {
  test('cost and tokens add up over sessions; denials counted per tool, most first', () => {
    const result = (cost: number, denied: string[], session_id = 'conv-1') =>
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        session_id,
        is_error: false,
        total_cost_usd: cost,
        usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 50 },
        permission_denials: denied.map((tool_name) => ({ tool_name })),
      });
    // A resume reports its conversation's running total: 0.25, then 0.5 in all; a fresh conversation adds its own.
    const usage = summarizeUsage(
      parseStream(
        log(
          marker(1, 'initial'),
          result(0.25, ['Bash', 'WebFetch', 'Bash']),
          marker(2, 'resume'),
          result(0.5, ['Bash']),
          marker(3, 'resume'),
          result(0.25, [], 'conv-2'),
        ),
      ),
    );
    expect(usage).toEqual({
      costUsd: 0.75,
      tokens: { input: 450, output: 30 },
      sessions: 3,
      permissionDenials: {
        count: 4,
        tools: [
          { name: 'Bash', count: 3 },
          { name: 'WebFetch', count: 1 },
        ],
      },
    });
  });

  test('an empty log costs nothing', () => {
    expect(summarizeUsage(parseStream(''))).toEqual({
      costUsd: 0,
      tokens: { input: 0, output: 0 },
      sessions: 0,
      permissionDenials: { count: 0, tools: [] },
    });
  });
});

describe('real CLI output (2.1.329), whose result lines do not start with "type"', () => {
  const real = (name: string) =>
    readFileSync(new URL(`../fixtures/real-cli/${name}`, import.meta.url), 'utf8');

  test('a 401 run: the result with its status and text, the retry counted', () => {
    const [s] = parseStream(real('auth-401.jsonl'));
    expect(s?.result).toMatchObject({
      isError: true,
      apiErrorStatus: 401,
      text: expect.stringMatching(/Invalid API key/),
    });
    expect(s?.apiRetries).toBe(1);
  });

  test('a subscription limit: the rejected rate_limit_event with its reset time', () => {
    const [s] = parseStream(real('subscription-limit.jsonl'));
    expect(s?.rateLimit).toMatchObject({ status: 'rejected', type: 'five_hour' });
    expect(s?.rateLimit?.resetsAt).toBeInstanceOf(Date);
    expect(s?.result).toMatchObject({
      isError: true,
      apiErrorStatus: 429,
      text: expect.stringMatching(/limit/),
    });
  });

  test('a sandbox that cannot start (2.1.332): a typed startup failure, classified as blocked', () => {
    const [s] = parseStream(real('sandbox-unavailable.jsonl'));
    expect(s?.result).toMatchObject({
      isError: true,
      subtype: 'error_during_execution',
      startupFailure: 'sandbox_required_unavailable',
      text: expect.stringMatching(/bubblewrap/),
    });
    const end = classifyEnd({
      exitCode: 1,
      result: s?.result ?? null,
      limited: false,
      auth: false,
      reportExists: false,
      errorType: s?.result?.startupFailure,
      stoppedByUs: false,
    });
    expect(end).toBe('blocked');
  });

  test('the type is found wherever it stands in the line', () => {
    const line = JSON.stringify({
      duration_ms: 5,
      total_cost_usd: 0.5,
      session_id: 's',
      type: 'result',
      subtype: 'success',
      is_error: false,
    });
    expect(summarizeUsage(parseStream(line + '\n')).costUsd).toBe(0.5);
  });
});

test('wrongConversations: resumed sessions whose init names another conversation', () => {
  const init = (id: string) =>
    JSON.stringify({ type: 'system', subtype: 'init', session_id: id, model: 'm' });
  const sessions = parseStream(
    log(
      marker(1, 'initial'),
      init('run'),
      marker(2, 'resume'),
      init('run'),
      marker(3, 'resume'),
      init('other'),
      marker(4, 'resume'),
    ),
  );
  expect(wrongConversations(sessions, 'run')).toEqual([
    { session: 3, conversation: 'other', expected: 'run' },
  ]);
});

test('wrongConversations compares each session with the conversation its marker names (a fresh session is no mismatch)', () => {
  const init = (id: string) =>
    JSON.stringify({ type: 'system', subtype: 'init', session_id: id, model: 'm' });
  const mark = (n: number, conversation: string) =>
    JSON.stringify({ type: 'overnight_session', session: n, mode: 'resume', conversation });
  const sessions = parseStream(
    log(mark(1, 'a'), init('a'), mark(2, 'b'), init('b'), mark(3, 'b'), init('c')),
  );
  expect(wrongConversations(sessions, 'b')).toEqual([{ session: 3, conversation: 'c', expected: 'b' }]);
});

test('authFailuresInARow counts refused logins at the end of the log, from real CLI output', () => {
  const real = readFileSync(new URL('../fixtures/real-cli/auth-401.jsonl', import.meta.url), 'utf8');
  const ok = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'fine' });
  expect(authFailuresInARow(parseStream(log(marker(1, 'initial'), real, marker(2, 'retry'), real)))).toBe(2);
  expect(authFailuresInARow(parseStream(log(marker(1, 'initial'), real, marker(2, 'resume'), ok)))).toBe(0);
  expect(authFailuresInARow(parseStream(log(marker(1, 'initial'), ok, marker(2, 'resume'), real)))).toBe(1);
});

test('failedResumesInARow: resumed sessions at the end with no model output at all', () => {
  const said = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'hi' }] } });
  const failed = JSON.stringify({
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    result: 'boom',
  });
  const mark = (n: number, mode: string) => JSON.stringify({ type: 'overnight_session', session: n, mode });
  expect(
    failedResumesInARow(
      parseStream(
        log(
          mark(1, 'initial'),
          said,
          mark(2, 'resume'),
          failed,
          mark(3, 'resume'),
          mark(4, 'resume'),
          failed,
        ),
      ),
    ),
  ).toBe(3);
  expect(
    failedResumesInARow(
      parseStream(log(mark(1, 'initial'), mark(2, 'resume'), failed, mark(3, 'resume'), said)),
    ),
  ).toBe(0);
  expect(failedResumesInARow(parseStream(log(mark(1, 'initial'), failed)))).toBe(0);
});

describe('captured real-CLI runs through the classifiers', () => {
  const real = (name: string) =>
    parseStream(readFileSync(new URL(`../fixtures/real-cli/${name}`, import.meta.url), 'utf8'))[0];
  test('the subscription limit is a wait with its reset time', () => {
    const s = real('subscription-limit.jsonl');
    const limit = classifyLimit(s?.result?.text ?? '', s?.rateLimit ?? null, new Date(), 0);
    expect(limit).toMatchObject({ kind: 'wait', what: 'five_hour limit' });
  });
  test('the 401 is an auth failure, not a limit', () => {
    const s = real('auth-401.jsonl');
    expect(isAuthFailure(s?.result ?? null)).toBe(true);
    expect(classifyLimit(s?.result?.text ?? '', s?.rateLimit ?? null, new Date(), 0)).toBeNull();
  });
  test('SIGINT mid-request (exit 0) is an interrupted session', () => {
    const s = real('sigint-mid-request.jsonl');
    expect(
      classifyEnd({
        exitCode: 0,
        result: s?.result ?? null,
        limited: false,
        auth: false,
        reportExists: false,
        stoppedByUs: false,
      }),
    ).toBe('interrupted');
  });
});
