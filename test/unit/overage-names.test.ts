import { describe, expect, test } from 'vitest';

import { spendingCredits } from '../../src/core/agent/rate-limit.js';
import { parseStream } from '../../src/core/agent/stream.js';
import { decide } from '../../src/core/supervise/decide.js';
import { endOfSession, overageOf } from '../../src/core/supervise/session-end.js';
import { at, ended, exited, observation, running, session, spec } from './builders.js';

// Paid credits being spent, under every name the CLI's rate_limit_event gives it since 2.1.325:
// each stops the agent unless the run allows overage, and is waited out like the limit it spends.

const RESET = 1795320000; // 2026-11-22T04:00:00Z
const marker = JSON.stringify({
  type: 'overnight_session',
  session: 1,
  mode: 'initial',
  conversation: 'c',
  at: '2026-11-22T01:00:00Z',
});
const event = (info: Record<string, unknown>) =>
  JSON.stringify({ type: 'rate_limit_event', rate_limit_info: info });
const windows = (five: Record<string, unknown>, seven: Record<string, unknown> = {}) => ({
  five_hour: { utilization: 1, resetsAt: RESET, ...five },
  seven_day: { utilization: 0.4, resetsAt: RESET + 86400, ...seven },
});

describe('which events say paid credits are being spent', () => {
  test.each<{ name: string; info: Record<string, unknown>; want: boolean }>([
    { name: 'isUsingOverage', info: { status: 'rejected', isUsingOverage: true }, want: true },
    {
      name: 'overageInUse',
      info: { status: 'allowed', isUsingOverage: false, overageInUse: true },
      want: true,
    },
    { name: 'the grace zone', info: { status: 'allowed', rateLimitGraceActive: true }, want: true },
    {
      name: 'a window rejected while requests go on',
      info: { status: 'allowed', unifiedWindows: windows({ status: 'rejected' }) },
      want: true,
    },
    {
      name: 'the overage-included weekly window rejected while requests go on',
      info: {
        status: 'allowed_warning',
        unifiedWindows: {
          seven_day_overage_included: { utilization: 1, resetsAt: RESET, status: 'rejected' },
        },
      },
      want: true,
    },
    { name: 'all allowed', info: { status: 'allowed', isUsingOverage: false }, want: false },
    {
      name: 'windows reported, none rejected',
      info: { status: 'allowed_warning', unifiedWindows: windows({ status: 'allowed_warning' }) },
      want: false,
    },
    {
      name: 'rejected and stopped (a usage limit, not overage)',
      info: { status: 'rejected', unifiedWindows: windows({ status: 'rejected' }), isUsingOverage: false },
      want: false,
    },
    {
      name: 'overage merely allowed, not in use',
      info: { status: 'allowed', overageStatus: 'allowed' },
      want: false,
    },
    { name: 'flags that are not true', info: { overageInUse: 'yes', rateLimitGraceActive: 1 }, want: false },
  ])('$name → $want', ({ info, want }) => {
    expect(spendingCredits(info)).toBe(want);
    const [s] = parseStream(marker + '\n' + event(info) + '\n');
    expect(s?.rateLimit?.usingOverage).toBe(want);
  });
});

describe('each name stops the agent unless allowed, and is waited out', () => {
  test.each<{ name: string; info: Record<string, unknown>; window: string }>([
    {
      name: 'overageInUse',
      info: { status: 'allowed', rateLimitType: 'five_hour', resetsAt: RESET, overageInUse: true },
      window: 'five_hour',
    },
    {
      name: 'the grace zone',
      info: { status: 'allowed', rateLimitType: 'five_hour', resetsAt: RESET, rateLimitGraceActive: true },
      window: 'five_hour',
    },
    {
      // The event names no window: the rejected one gives its name and reset.
      name: 'a rejected window',
      info: { status: 'allowed', unifiedWindows: windows({ status: 'rejected' }) },
      window: 'five_hour',
    },
  ])('$name', ({ info, window }) => {
    const logs = parseStream(marker + '\n' + event(info) + '\n');
    const overage = overageOf(logs.at(-1));
    expect(overage).toMatchObject({ resetsAt: new Date(RESET * 1000), window });

    const live = observation({ session: running(session(), { overage }), outputAt: at('02:00') });
    expect(decide(spec(), live, at('02:00'))).toMatchObject({
      kind: 'interrupt',
      reason: `paid extra usage: the ${window} limit was reached and allow_overage is off; stopping until it resets`,
    });
    expect(decide(spec({ allowOverage: true }), live, at('02:00'))).toMatchObject({ kind: 'none' });

    const end = endOfSession(logs, 1, at('02:01'), 0);
    expect(end.limit).toMatchObject({ kind: 'wait', resetsAt: new Date(RESET * 1000), overage: true });
    const stopped = observation({ session: ended(session(), { exit: exited(0, at('02:01')), ...end }) });
    expect(decide(spec(), stopped, at('02:02'))).toMatchObject({
      kind: 'wait',
      resetsAt: new Date(RESET * 1000),
    });
    expect(endOfSession(logs, 1, at('02:01'), 0, true).limit).toBeNull();
  });
});
