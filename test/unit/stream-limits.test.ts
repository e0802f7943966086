import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import { apiTroubleInARow, isApiTrouble } from '../../src/core/agent/api-trouble.js';
import { parseStream, type SessionLog } from '../../src/core/agent/stream.js';
import { endOfSession, overageOf } from '../../src/core/supervise/session-end.js';

// What the stream says about limits, overage, windows and API trouble: from captured real-CLI
// runs (2.1.329 against the mock) and from lines written to the point.

const real = (name: string) => readFileSync(new URL(`../fixtures/real-cli/${name}`, import.meta.url), 'utf8');
const marker = (n: number, mode: string, at: string) =>
  JSON.stringify({ type: 'overnight_session', session: n, mode, conversation: 'c', at });
const rateLimit = (info: Record<string, unknown>) =>
  JSON.stringify({ type: 'rate_limit_event', rate_limit_info: info });
const assistantAt = (timestamp: string) =>
  JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x' }] }, timestamp });
const result = (over: Record<string, unknown>) =>
  JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'API Error', ...over });
const log = (...lines: string[]) => lines.join('\n') + '\n';

describe('real CLI runs', () => {
  test.each<{ name: string; file: string; want: Partial<SessionLog['result']> }>([
    {
      name: 'a per-minute 429 after the retries',
      file: 'api-429.jsonl',
      want: { isError: true, apiErrorStatus: 429, apiErrorType: 'rate_limit_error', apiError: null },
    },
    {
      name: 'a 529 after the retries',
      file: 'api-529.jsonl',
      want: { isError: true, apiErrorStatus: 529, apiErrorType: 'overloaded_error' },
    },
  ])('$name → API trouble', ({ file, want }) => {
    const [s] = parseStream(real(file));
    expect(s?.result).toMatchObject(want as object);
    expect(isApiTrouble(s?.result ?? null)).toBe(true);
    expect(s?.apiRetries).toBeGreaterThan(0);
  });

  test('the subscription limit under OAuth: usage_limit_reached, never API trouble', () => {
    const [s] = parseStream(real('usage-limit-5h.jsonl'));
    expect(s?.result).toMatchObject({ apiErrorStatus: 429, apiError: 'usage_limit_reached' });
    expect(isApiTrouble(s?.result ?? null)).toBe(false);
    const logs = parseStream(
      marker(1, 'initial', '2026-11-23T16:20:00Z') + '\n' + real('usage-limit-5h.jsonl'),
    );
    expect(endOfSession(logs, 1, new Date(), 0).limit).toMatchObject({
      kind: 'wait',
      what: 'five_hour limit',
    });
  });

  test('paid extra usage begins mid-run: the latest event says so, since the response before it', () => {
    const [s] = parseStream(real('oauth-overage.jsonl'));
    expect(s?.rateLimit).toMatchObject({ status: 'rejected', type: 'five_hour', usingOverage: true });
    expect(s?.overageSince).toEqual(new Date('2026-11-23T16:23:19.957Z'));
    expect(s?.result?.isError).toBe(false);
  });

  test.each<{ file: string; fiveHour: number | null; sevenDay: number | null }>([
    { file: 'oauth-windows.jsonl', fiveHour: 0.3, sevenDay: 0.1 },
    { file: 'oauth-warning-5h.jsonl', fiveHour: 0.92, sevenDay: null },
  ])('window utilization from $file → 5h $fiveHour, weekly $sevenDay', ({ file, fiveHour, sevenDay }) => {
    const [s] = parseStream(real(file));
    expect(s?.windows.fiveHour?.utilization ?? null).toBe(fiveHour);
    expect(s?.windows.sevenDay?.utilization ?? null).toBe(sevenDay);
    expect(s?.windows.fiveHour?.resetsAt).toBeInstanceOf(Date);
  });
});

describe('overage, session by session', () => {
  const on = { status: 'rejected', resetsAt: 1795300000, rateLimitType: 'five_hour', isUsingOverage: true };
  const off = { status: 'allowed', resetsAt: 1795300000, isUsingOverage: false };

  test.each<{ name: string; lines: string[]; since: string | null }>([
    {
      name: 'no event',
      lines: [marker(1, 'initial', '2026-11-22T01:00:00Z')],
      since: null,
    },
    {
      name: 'on overage since the response before the event',
      lines: [
        marker(1, 'initial', '2026-11-22T01:00:00Z'),
        assistantAt('2026-11-22T03:12:00Z'),
        rateLimit(on),
      ],
      since: '2026-11-22T03:12:00.000Z',
    },
    {
      name: 'no timestamp seen: since the session began',
      lines: [marker(1, 'initial', '2026-11-22T01:00:00Z'), rateLimit(on)],
      since: '2026-11-22T01:00:00.000Z',
    },
    {
      name: 'on, then off again (the window reset)',
      lines: [marker(1, 'initial', '2026-11-22T01:00:00Z'), rateLimit(on), rateLimit(off)],
      since: null,
    },
    {
      name: 'a later session starts afresh',
      lines: [
        marker(1, 'initial', '2026-11-22T01:00:00Z'),
        rateLimit(on),
        marker(2, 'continue', '2026-11-22T05:00:00Z'),
      ],
      since: null,
    },
  ])('$name → $since', ({ lines, since }) => {
    const logs = parseStream(log(...lines));
    const last = logs.at(-1);
    expect(last?.overageSince?.toISOString() ?? null).toBe(since);
    expect(overageOf(last)?.since?.toISOString() ?? null).toBe(since);
  });

  test('a session that ended on overage is a limit to wait out unless overage is allowed', () => {
    const logs = parseStream(log(marker(1, 'initial', '2026-11-22T01:00:00Z'), rateLimit(on)));
    const endedAt = new Date('2026-11-22T03:13:00Z');
    expect(endOfSession(logs, 1, endedAt, 0).limit).toEqual({
      kind: 'wait',
      resetsAt: new Date(1795300000 * 1000),
      what: 'the five_hour limit was reached and paid extra usage began (allow_overage is off)',
      overage: true,
    });
    expect(endOfSession(logs, 1, endedAt, 0, true).limit).toBeNull();
  });

  test('usage_limit_reached without a rejected event or known words is still the usage limit', () => {
    const logs = parseStream(
      log(
        marker(1, 'initial', '2026-11-22T01:00:00Z'),
        result({ api_error_status: 429, api_error: 'usage_limit_reached', result: 'Stopped' }),
      ),
    );
    expect(endOfSession(logs, 1, new Date(), 0).limit).toEqual({
      kind: 'wait',
      resetsAt: null,
      what: 'usage limit',
    });
  });
});

describe('API trouble in a row', () => {
  const trouble = (n: number, at: string) => [
    marker(n, n === 1 ? 'initial' : 'retry', at),
    result({ api_error_status: 529, api_error_type: 'overloaded_error', duration_ms: 60_000 }),
  ];
  test.each<{ name: string; lines: string[]; want: { count: number; since: string | null } }>([
    { name: 'none', lines: [marker(1, 'initial', '2026-11-22T01:00:00Z')], want: { count: 0, since: null } },
    {
      name: 'one: since its session began plus the time it ran',
      lines: trouble(1, '2026-11-22T01:00:00Z'),
      want: { count: 1, since: '2026-11-22T01:01:00.000Z' },
    },
    {
      name: 'three in a row after a good session: since the first of them ended',
      lines: [
        marker(1, 'initial', '2026-11-22T00:00:00Z'),
        result({ is_error: false, result: 'done' }),
        ...trouble(2, '2026-11-22T01:00:00Z'),
        ...trouble(3, '2026-11-22T01:02:00Z'),
        ...trouble(4, '2026-11-22T01:05:00Z'),
      ],
      want: { count: 3, since: '2026-11-22T01:01:00.000Z' },
    },
    {
      name: 'a crash in between ends the streak',
      lines: [
        ...trouble(1, '2026-11-22T01:00:00Z'),
        marker(2, 'retry', '2026-11-22T01:02:00Z'),
        result({ result: 'boom' }),
      ],
      want: { count: 0, since: null },
    },
  ])('$name → $want.count', ({ lines, want }) => {
    const r = apiTroubleInARow(parseStream(log(...lines)));
    expect({ count: r.count, since: r.since?.toISOString() ?? null }).toEqual(want);
  });

  test.each<{ name: string; result: Parameters<typeof isApiTrouble>[0]; want: boolean }>([
    {
      name: '429 rate_limit_error',
      result: {
        isError: true,
        apiErrorStatus: 429,
        apiErrorType: 'rate_limit_error',
        apiError: null,
        text: '',
      },
      want: true,
    },
    {
      name: '500 api_error',
      result: { isError: true, apiErrorStatus: 500, apiErrorType: 'api_error', apiError: null, text: '' },
      want: true,
    },
    {
      name: '429 usage_limit_reached',
      result: {
        isError: true,
        apiErrorStatus: 429,
        apiErrorType: 'rate_limit_error',
        apiError: 'usage_limit_reached',
        text: '',
      },
      want: false,
    },
    {
      name: '401',
      result: {
        isError: true,
        apiErrorStatus: 401,
        apiErrorType: 'authentication_error',
        apiError: null,
        text: '',
      },
      want: false,
    },
    {
      name: '400 prompt too long',
      result: {
        isError: true,
        apiErrorStatus: 400,
        apiErrorType: 'invalid_request_error',
        apiError: null,
        text: '',
      },
      want: false,
    },
    {
      name: 'no error',
      result: { isError: false, apiErrorStatus: null, apiErrorType: null, apiError: null, text: 'done' },
      want: false,
    },
    {
      name: 'a plain crash',
      result: {
        isError: true,
        apiErrorStatus: null,
        apiErrorType: null,
        apiError: null,
        text: 'API Error: fake failure 1',
      },
      want: false,
    },
  ])('isApiTrouble: $name → $want', ({ result: r, want }) => {
    expect(isApiTrouble(r)).toBe(want);
  });
});
