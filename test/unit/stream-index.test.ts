import { describe, expect, test } from 'vitest';

import {
  copyStream,
  feedLongLine,
  judgeIndex,
  LONG_HEAD,
  LONG_TAIL,
  reviveDates,
  reviveDatesIn,
  SAVE_AFTER_BYTES,
  STREAM_SHAPE,
  worthSaving,
  type IndexVerdict,
  type StreamIndex,
} from '../../src/core/agent/stream-index.js';
import {
  emptySession,
  feedLine,
  newStream,
  parseStream,
  type StreamState,
} from '../../src/core/agent/stream.js';

// The reducer folded line by line, lines too long to hold, and when a stored index may be extended.

const marker = (n: number, mode: string) =>
  JSON.stringify({ type: 'overnight_session', session: n, mode, at: '2026-11-21T23:15:00.000Z' });
const huge = (n: number) => 'z'.repeat(n);
/** A line over the cap as the reader sees it: its first and last bytes. */
const ends = (line: string): [string, string] => [line.slice(0, LONG_HEAD), line.slice(-LONG_TAIL)];

function folded(...lines: string[]): StreamState {
  const state = newStream();
  for (const l of lines) feedLine(state, l);
  return state;
}

describe('feedLine', () => {
  test('line by line gives what parseStream gives for the whole text', () => {
    const lines = [
      marker(1, 'initial'),
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 'c', model: 'm' }),
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Read' }] } }),
      'Error: boom',
      marker(2, 'resume'),
      JSON.stringify({ type: 'result', subtype: 'success', is_error: false, total_cost_usd: 0.5 }),
    ];
    expect(folded(...lines).sessions).toEqual(parseStream(lines.join('\n') + '\n'));
  });

  test("the limits a session meets (times, overage, windows, a follow-up's cost) survive the index", () => {
    const lines = [
      JSON.stringify({ ...JSON.parse(marker(1, 'initial')), inheritedCostUsd: 0.75 }),
      JSON.stringify({
        type: 'assistant',
        message: { content: [{ type: 'text', text: 'hi' }] },
        timestamp: '2026-11-21T23:40:00.000Z',
      }),
      JSON.stringify({
        type: 'rate_limit_event',
        rate_limit_info: {
          status: 'allowed_warning',
          resetsAt: 1795259134,
          rateLimitType: 'five_hour',
          isUsingOverage: true,
          unifiedWindows: { seven_day: { utilization: 0.5, resetsAt: 1795859134 } },
        },
      }),
      JSON.stringify({
        type: 'result',
        is_error: true,
        api_error_status: 529,
        api_error_type: 'overloaded_error',
        api_error: 'server_error',
      }),
    ];
    const state = folded(...lines);
    const [s] = state.sessions;
    expect(s).toMatchObject({
      startedAt: new Date('2026-11-21T23:15:00.000Z'),
      lastEventAt: new Date('2026-11-21T23:40:00.000Z'),
      overageSince: new Date('2026-11-21T23:40:00.000Z'),
      inheritedCostUsd: 0.75,
      windows: { sevenDay: { utilization: 0.5, resetsAt: new Date(1795859134 * 1000) } },
      result: { apiErrorType: 'overloaded_error', apiError: 'server_error' },
    });
    expect(state.sessions).toEqual(parseStream(lines.join('\n') + '\n'));
    expect(reviveDatesIn(JSON.parse(JSON.stringify(state)) as StreamState)).toEqual(state);
    expect(JSON.parse(JSON.stringify(state), reviveDates)).toEqual(state);
  });
});

interface LongCase {
  name: string;
  line: string;
  want: Record<string, unknown>;
}

describe('feedLongLine', () => {
  const big = huge(3 * 1024 * 1024);
  test.each<LongCase>([
    {
      name: 'an assistant event writing a huge file → one assistant event, its tool call counted',
      line: JSON.stringify({
        type: 'assistant',
        message: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: '/a', content: big } }] },
      }),
      want: { assistantEvents: 1, toolCalls: 1, result: null },
    },
    {
      name: 'a huge assistant event with its timestamp last (the CLI) → its time is the last event',
      line: JSON.stringify({
        type: 'assistant',
        message: { content: [{ type: 'text', text: big }] },
        timestamp: '2026-11-22T01:02:03.000Z',
      }),
      want: { assistantEvents: 1, lastEventAt: new Date('2026-11-22T01:02:03.000Z') },
    },
    {
      name: 'a huge tool result → nothing counted',
      line: JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', content: big }] } }),
      want: { assistantEvents: 0, toolCalls: 0, result: null, otherLines: [] },
    },
    {
      name: 'a result with a huge text, type last (the real CLI) → its fields, its text cut',
      line: JSON.stringify({
        session_id: 'conv',
        total_cost_usd: 1.25,
        usage: { input_tokens: 7, output_tokens: 3 },
        permission_denials: [{ tool_name: 'Bash' }],
        is_error: false,
        num_turns: 4,
        subtype: 'success',
        result: `Findings: ${big}`,
        type: 'result',
      }),
      want: {
        result: expect.objectContaining({
          sessionId: 'conv',
          subtype: 'success',
          isError: false,
          costUsd: 1.25,
          inputTokens: 7,
          outputTokens: 3,
          numTurns: 4,
          denied: ['Bash'],
          text: expect.stringMatching(/^Findings: z+…$/),
        }),
      },
    },
    {
      name: 'a result with a huge text, type first → an error result keeps its status',
      line: JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: true,
        api_error_status: 529,
        result: `Overloaded ${big}`,
        total_cost_usd: 0.5,
      }),
      want: { result: expect.objectContaining({ isError: true, apiErrorStatus: 529, costUsd: 0.5 }) },
    },
    {
      name: 'a huge API error result → its error type and cause kept',
      line: JSON.stringify({
        type: 'result',
        is_error: true,
        api_error_status: 429,
        api_error_type: 'rate_limit_error',
        api_error: 'usage_limit_reached',
        result: `API Error ${big}`,
      }),
      want: {
        result: expect.objectContaining({
          apiErrorType: 'rate_limit_error',
          apiError: 'usage_limit_reached',
        }),
      },
    },
    {
      name: 'a huge line that is not JSON (a sparse file, a dump) → its start kept as an other line',
      line: `Fatal: ${big}`,
      want: { otherLines: [`Fatal: ${'z'.repeat(493)}`] },
    },
  ])('$name', ({ line, want }) => {
    const state = folded(marker(1, 'initial'));
    feedLongLine(state, ...ends(line));
    expect(state.sessions).toHaveLength(1);
    expect(state.sessions[0]).toMatchObject(want);
  });
});

describe('a stored state', () => {
  test('survives JSON with its Dates, revived in place too', () => {
    const state = folded(
      marker(1, 'initial'),
      JSON.stringify({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1795259134 },
      }),
    );
    expect(reviveDatesIn(JSON.parse(JSON.stringify(state)) as StreamState)).toEqual(state);
  });

  test('survives JSON with its Dates (a rate limit reset time)', () => {
    const state = folded(
      marker(1, 'initial'),
      JSON.stringify({
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: 1795259134, rateLimitType: 'five_hour' },
      }),
    );
    const back = JSON.parse(JSON.stringify(state), reviveDates) as StreamState;
    expect(back).toEqual(state);
    expect(back.sessions[0]?.rateLimit?.resetsAt).toBeInstanceOf(Date);
  });

  test('a copy can be fed without touching the original', () => {
    const state = folded(marker(1, 'initial'));
    const copy = copyStream(state);
    feedLine(copy, 'Error: torn');
    expect(state.sessions[0]?.otherLines).toEqual([]);
    expect(copy.sessions[0]?.otherLines).toEqual(['Error: torn']);
  });
});

interface JudgeCase {
  name: string;
  stored: unknown;
  log?: { dev: number; ino: number; size: number };
  /** The hash of the log's first bytes as they are now. */
  print?: string;
  want: IndexVerdict;
}

describe('judgeIndex', () => {
  const index = (over: Partial<StreamIndex> = {}): StreamIndex => ({
    shape: STREAM_SHAPE,
    dev: 1,
    ino: 42,
    printLen: 4096,
    print: 'abc',
    offset: 10_000,
    long: null,
    starts: [0],
    state: { sessions: [] },
    ...over,
  });
  test.each<JudgeCase>([
    {
      name: 'the same log, grown → use',
      stored: index(),
      log: { dev: 1, ino: 42, size: 20_000 },
      want: 'use',
    },
    { name: 'the same log, unchanged → use', stored: index(), want: 'use' },
    { name: 'no index → missing', stored: null, want: 'missing' },
    { name: 'not an index → corrupt', stored: { offset: 'x' }, want: 'corrupt' },
    {
      name: 'a print longer than what it covers → corrupt',
      stored: index({ printLen: 20_000 }),
      want: 'corrupt',
    },
    {
      name: 'written under another shape → other shape',
      stored: index({ shape: '1:old' }),
      want: 'other shape',
    },
    {
      name: 'another inode → replaced',
      stored: index(),
      log: { dev: 1, ino: 43, size: 20_000 },
      want: 'replaced',
    },
    {
      name: 'another device → replaced',
      stored: index(),
      log: { dev: 2, ino: 42, size: 20_000 },
      want: 'replaced',
    },
    {
      name: 'shorter than it covers → shrunk',
      stored: index(),
      log: { dev: 1, ino: 42, size: 9_999 },
      want: 'shrunk',
    },
    { name: 'its first bytes changed → rewritten', stored: index(), print: 'def', want: 'rewritten' },
    // Read back as untrusted (issue 17): a session number or counter out of range is rebuilt.
    {
      name: 'a session of its own → use',
      stored: index({ state: { sessions: [emptySession(1, 'initial')] } }),
      want: 'use',
    },
    {
      name: 'session 2^53-1 → corrupt',
      stored: index({ state: { sessions: [emptySession(9007199254740991, 'initial')] } }),
      want: 'corrupt',
    },
    {
      name: 'a negative counter → corrupt',
      stored: index({ state: { sessions: [{ ...emptySession(1, 'initial'), apiRetries: -1 }] } }),
      want: 'corrupt',
    },
    {
      name: 'a cost of 1e300 → corrupt',
      stored: index({ state: { sessions: [{ ...emptySession(1, 'initial'), inheritedCostUsd: 1e300 }] } }),
      want: 'corrupt',
    },
    { name: 'a start that is not a number → corrupt', stored: index({ starts: [0, -5] }), want: 'corrupt' },
    {
      name: 'a session that is not an object → corrupt',
      stored: index({ state: { sessions: [null] } } as never),
      want: 'corrupt',
    },
  ])('$name', ({ stored, log = { dev: 1, ino: 42, size: 10_000 }, print = 'abc', want }) => {
    expect(judgeIndex(stored, log, () => print)).toBe(want);
  });
});

describe('when a reader writes the index back', () => {
  test.each([
    { made: true, folded: 0, want: true },
    { made: true, folded: 1, want: true },
    { made: true, folded: 10 * SAVE_AFTER_BYTES, want: true },
    { made: false, folded: 0, want: false },
    { made: false, folded: 1, want: false },
    { made: false, folded: SAVE_AFTER_BYTES - 1, want: false },
    { made: false, folded: SAVE_AFTER_BYTES, want: true },
    { made: false, folded: 1024 * 1024, want: true },
  ])('made $made, folded $folded: $want', ({ made, folded, want }) => {
    expect(worthSaving(made, folded)).toBe(want);
  });

  test('every few KB of a slowly growing log, not every pass over it', () => {
    expect(SAVE_AFTER_BYTES).toBeGreaterThanOrEqual(4 * 1024);
    expect(SAVE_AFTER_BYTES).toBeLessThanOrEqual(64 * 1024);
  });
});
