import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { newDelivery, removable } from '../../src/core/notify/delivery.js';
import { dayOf, DIGEST_RUN, digestDue, digestEvent } from '../../src/core/notify/digest.js';
import { desktopCall, fit, title, webhookRequest } from '../../src/core/notify/format.js';
import type { WebhookTarget } from '../../src/core/notify/targets.js';

// The morning digest by notification: when a day's digest is due, what it is sent as, and how long
// its delivery is kept (it names the day, and must not be sent twice that day). Times are local:
// `new Date(y, m, d, h, min)` is the machine's own zone, as the pass reads `at:`.

const at = (h: number, min: number, day = 22) => new Date(2026, 10, day, h, min);
const UTC = localTime('UTC');
const TEXT =
  'overnight digest · the last 24h · now\n1 run: 1 done · nothing needs you · 0 open questions · $0.45 spent';

describe('digestDue', () => {
  test.each([
    { name: 'a minute before the time', at: '07:30', now: at(7, 29), want: null },
    { name: 'at the time', at: '07:30', now: at(7, 30), want: 20261122 },
    { name: 'later that day', at: '07:30', now: at(23, 59), want: 20261122 },
    {
      name: 'after midnight, before the time: not yet the new day',
      at: '07:30',
      now: at(0, 5, 23),
      want: null,
    },
    { name: 'the next day after the time', at: '07:30', now: at(7, 31, 23), want: 20261123 },
    { name: 'at midnight', at: '00:00', now: at(0, 0, 23), want: 20261123 },
  ])('$name → $want', ({ at: time, now, want }) => {
    expect(digestDue(time, now)).toBe(want);
  });
});

describe('the digest as sent', () => {
  const e = digestEvent(20261122, at(7, 31), '/runs', TEXT, '1 run: 1 done');
  const hook = (format: WebhookTarget['format']): WebhookTarget => ({
    kind: 'webhook',
    id: 'abc123abc123',
    label: 'phone',
    on: ['digest'],
    at: '07:30',
    url: 'https://ntfy.sh/t',
    format,
    headers: {},
  });

  test('one id per day, whatever the pass; no run of its own', () => {
    expect(e).toMatchObject({
      id: 'digest:20261122',
      event: 'digest',
      run: DIGEST_RUN,
      report: null,
      text: TEXT,
    });
    expect(digestEvent(20261122, at(9, 0), '/runs', 'other', 's').id).toBe(e.id);
  });

  test.each([
    { name: 'ntfy', format: 'ntfy' as const, want: (b: string) => b === TEXT },
    {
      name: 'slack',
      format: 'slack' as const,
      want: (b: string) => JSON.parse(b).text.endsWith('$0.45 spent'),
    },
    { name: 'json', format: 'json' as const, want: (b: string) => JSON.parse(b).message === TEXT },
  ])('$name: the digest text is the message', ({ format, want }) => {
    const req = webhookRequest(hook(format), e, {}, UTC);
    expect(req.ok && want(req.value.body)).toBe(true);
    expect(title(e, UTC)).toBe('overnight: the morning digest');
  });

  test('a long digest is cut at a line to fit ntfy, saying where the rest is', () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n');
    const req = webhookRequest(hook('ntfy'), { ...e, text: long }, {}, UTC);
    const body = req.ok ? req.value.body : '';
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(4000);
    expect(body.startsWith('line 0 ')).toBe(true);
    expect(body.endsWith('\n… (the rest: overnight digest)')).toBe(true);
    expect(fit('short', 4000)).toBe('short');
    expect(desktopCall('linux', { ...e, text: long }, UTC)?.args.at(-1)?.length).toBeLessThanOrEqual(4000);
  });
});

describe("a digest's delivery is kept while its day lasts", () => {
  const d = {
    ...newDelivery(
      digestEvent(20261122, at(7, 31), '/r', TEXT, 's'),
      20261122,
      {
        kind: 'desktop',
        id: 'abc123abc123',
        label: 'desktop',
        on: ['digest'],
        at: '07:30',
      },
      {},
      { timeout: 10, tries: 5, backoff: 120 },
      at(7, 31),
    ),
    status: 'sent' as const,
    doneAt: at(7, 31).toISOString(),
  };
  test.each([
    { name: 'later that day, long after it was sent', now: at(23, 0), want: false },
    { name: 'the next day, an hour after it was sent', now: at(8, 40, 23), want: true },
  ])('$name → removable $want', ({ now, want }) => {
    expect(removable(d, dayOf(now), now)).toBe(want);
  });
});
