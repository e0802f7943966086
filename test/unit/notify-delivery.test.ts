import { describe, expect, test } from 'vitest';

import {
  afterAttempt,
  deliveryKey,
  failureWarning,
  isDue,
  LOST_ATTEMPT,
  newDelivery,
  nextAttempt,
  parseDelivery,
  parseKey,
  removable,
  retryDelay,
  type Delivery,
  type Policy,
} from '../../src/core/notify/delivery.js';
import type { NotifyEvent } from '../../src/core/notify/events.js';
import type { NotifyTarget } from '../../src/core/notify/targets.js';
import { at } from './builders.js';

const RUN = '2026-11-21-2315-survey-crdt';
const POLICY: Policy = { timeout: 10, tries: 5, backoff: 120 };
const TARGET: NotifyTarget = {
  kind: 'desktop',
  id: '0123456789ab',
  label: 'phone',
  on: ['done', 'failed', 'needs-you'],
};
const EVENT: NotifyEvent = {
  id: `${RUN}:512`,
  event: 'failed',
  kinds: ['failed'],
  run: RUN,
  state: 'failed',
  reason: 'circuit breaker: 5 restarts',
  at: at('03:00').toISOString(),
  report: null,
  workspace: `/runs/${RUN}`,
  task: null,
};

const queued = (over: Partial<Delivery> = {}): Delivery => ({
  ...newDelivery(EVENT, 512, TARGET, {}, POLICY, at('03:00')),
  ...over,
});

describe('a delivery record', () => {
  test('new: pending, due at once, keyed by run, offset and target', () => {
    const d = queued();
    expect(d).toMatchObject({
      key: `${RUN}.512.0123456789ab`,
      status: 'pending',
      attempts: 0,
      nextAt: at('03:00').toISOString(),
    });
    expect(isDue(d, at('03:00'))).toBe(true);
    expect(parseKey(d.key)).toEqual({ run: RUN, offset: 512, target: '0123456789ab' });
    expect(deliveryKey(RUN, 512, TARGET.id)).toBe(d.key);
  });

  test('round-trips through its file; anything else is unreadable', () => {
    expect(parseDelivery(JSON.stringify(queued()))).toEqual(queued());
    expect(parseDelivery('{"v":2}')).toBeNull();
    expect(parseDelivery('{torn')).toBeNull();
  });
});

interface AttemptCase {
  name: string;
  before: Partial<Delivery>;
  n: number;
  outcome: Parameters<typeof afterAttempt>[2];
  want: Partial<Delivery>;
}

describe('after an attempt', () => {
  test.each<AttemptCase>([
    {
      name: 'answered',
      before: {},
      n: 1,
      outcome: { ok: true, answer: 'HTTP 200 OK' },
      want: { status: 'sent', attempts: 1, answer: 'HTTP 200 OK', doneAt: at('03:00:01').toISOString() },
    },
    {
      name: 'the first failure: retried after the backoff',
      before: {},
      n: 1,
      outcome: { ok: false, error: 'connection refused (127.0.0.1:9)' },
      want: {
        status: 'pending',
        attempts: 1,
        lastError: 'connection refused (127.0.0.1:9)',
        nextAt: at('03:02:01').toISOString(),
      },
    },
    {
      name: 'the third failure: the backoff has doubled twice',
      before: { attempts: 2 },
      n: 3,
      outcome: { ok: false, error: 'HTTP 502' },
      want: { status: 'pending', attempts: 3, nextAt: at('03:08:01').toISOString() },
    },
    {
      name: 'the last try failed: given up',
      before: { attempts: 4 },
      n: 5,
      outcome: { ok: false, error: 'HTTP 502' },
      want: { status: 'failed', attempts: 5, doneAt: at('03:00:01').toISOString() },
    },
    {
      name: 'a refusal that will not change (401): given up at once',
      before: {},
      n: 1,
      outcome: { ok: false, error: 'HTTP 401 Unauthorized', permanent: true },
      want: { status: 'failed', attempts: 1 },
    },
    {
      name: 'after a dead sender’s attempt, this one counts as the next',
      before: { attempts: 1 },
      n: 3,
      outcome: { ok: true, answer: 'exit 0' },
      want: { status: 'sent', attempts: 3 },
    },
  ])('$name → $want.status', ({ before, n, outcome, want }) => {
    expect(afterAttempt(queued(before), n, outcome, at('03:00:01'))).toMatchObject(want);
  });

  test('notify_tries 0 still makes one attempt', () => {
    const d = queued({ policy: { ...POLICY, tries: 0 } });
    expect(afterAttempt(d, 1, { ok: false, error: 'x' }, at('03:00')).status).toBe('failed');
  });

  test.each([
    { attempts: 1, want: 120 },
    { attempts: 2, want: 240 },
    { attempts: 5, want: 1920 },
    { attempts: 9, want: 3600 },
  ])('retry delay after $attempts failures → $want s', ({ attempts, want }) => {
    expect(retryDelay(attempts, POLICY)).toBe(want);
  });

  test('not due before its next try, nor once done', () => {
    const waiting = queued({ nextAt: at('03:05').toISOString() });
    expect(isDue(waiting, at('03:04:59'))).toBe(false);
    expect(isDue(waiting, at('03:05'))).toBe(true);
    expect(isDue(queued({ status: 'sent' }), at('09:00'))).toBe(false);
  });
});

describe('claims: each attempt number is made by one sender only', () => {
  test.each([
    { name: 'no claim yet', attempts: 0, highest: 0, alive: false, want: { claim: 1, lost: false } },
    {
      name: 'the last claim is recorded',
      attempts: 2,
      highest: 2,
      alive: false,
      want: { claim: 3, lost: false },
    },
    { name: 'a live sender is on it', attempts: 0, highest: 1, alive: true, want: null },
    {
      name: 'its sender died mid-attempt',
      attempts: 0,
      highest: 1,
      alive: false,
      want: { claim: 2, lost: true },
    },
  ])('$name → $want', ({ attempts, highest, alive, want }) => {
    expect(nextAttempt(queued({ attempts }), highest, alive)).toEqual(want);
  });

  test('a dead sender’s last allowed try is recorded as given up', () => {
    const d = afterAttempt(queued({ attempts: 4 }), 5, { ok: false, error: LOST_ATTEMPT }, at('03:00'));
    expect(d).toMatchObject({ status: 'failed', lastError: LOST_ATTEMPT });
  });
});

describe('tidying', () => {
  const sentAt = (t: string) => queued({ status: 'sent', doneAt: at(t).toISOString() });
  test.each([
    {
      name: 'sent an hour ago, scanned past',
      d: sentAt('03:00'),
      scanned: 600,
      now: at('04:00'),
      want: true,
    },
    { name: 'sent a minute ago', d: sentAt('03:00'), scanned: 600, now: at('03:01'), want: false },
    {
      name: 'sent, but its line not scanned for good',
      d: sentAt('03:00'),
      scanned: 512,
      now: at('09:00'),
      want: false,
    },
    { name: 'sent, its run removed', d: sentAt('03:00'), scanned: null, now: at('04:00'), want: true },
    { name: 'pending, however old', d: queued(), scanned: 600, now: at('23:00'), want: false },
    {
      name: 'given up a day ago (status still warns)',
      d: queued({ status: 'failed', doneAt: at('03:00').toISOString() }),
      scanned: 600,
      now: new Date(at('03:00').getTime() + 24 * 3600_000),
      want: false,
    },
    {
      name: 'given up a week ago',
      d: queued({ status: 'failed', doneAt: at('03:00').toISOString() }),
      scanned: 600,
      now: new Date(at('03:00').getTime() + 7 * 24 * 3600_000),
      want: true,
    },
  ])('$name → removable: $want', ({ d, scanned, now, want }) => {
    expect(removable(d, scanned, now)).toBe(want);
  });
});

describe('what status says', () => {
  test.each([
    { name: 'not tried yet', d: queued(), want: null },
    { name: 'sent', d: queued({ status: 'sent', attempts: 2, lastError: 'HTTP 502' }), want: null },
    {
      name: 'failing, to be retried',
      d: queued({ attempts: 2, lastError: 'connection refused (ntfy.sh)' }),
      want: 'notifications failing: phone: connection refused (ntfy.sh) (2 tries of 5; later passes try again)',
    },
    {
      name: 'given up',
      d: queued({ status: 'failed', attempts: 5, lastError: 'HTTP 502' }),
      want: 'notifications failing: phone: HTTP 502 (the failed notice was given up after 5 tries)',
    },
  ])('$name → $want', ({ d, want }) => {
    expect(failureWarning(d)).toBe(want);
  });
});
