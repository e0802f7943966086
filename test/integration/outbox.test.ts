import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import {
  claimAttempt,
  createDelivery,
  listOutbox,
  markDone,
  readClaim,
  readDelivery,
  removeDelivery,
  writeDelivery,
} from '../../src/adapters/outbox.js';
import { newDelivery, type Delivery } from '../../src/core/notify/delivery.js';
import type { NotifyEvent } from '../../src/core/notify/events.js';

// The outbox's file primitives on a real disk: what makes "once per transition and target" hold
// when passes and senders race is that a delivery and each attempt's claim are created only once.

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ovt-outbox-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const RUN = '2026-11-21-2315-survey-crdt';
function delivery(over: Partial<Delivery> = {}): Delivery {
  const event = { id: `${RUN}:7`, event: 'done', kinds: ['done'], run: RUN, at: 'x' } as NotifyEvent;
  const target = { kind: 'desktop' as const, id: 'aaaaaaaaaaaa', label: 'desktop', on: ['done' as const] };
  return { ...newDelivery(event, 7, target, {}, { timeout: 1, tries: 2, backoff: 0 }, new Date(0)), ...over };
}

describe('the outbox on disk', () => {
  test('a delivery is created once: a second creation, in whatever state the first is, changes nothing', () => {
    expect(createDelivery(root, delivery())).toBe(true);
    writeDelivery(root, delivery({ status: 'sent', attempts: 1 }));
    expect(createDelivery(root, delivery())).toBe(false);
    expect(readDelivery(root, delivery().key)).toMatchObject({ status: 'sent', attempts: 1 });
    // No temp file is left behind either way.
    expect(readdirSync(join(root, '.notify'))).toEqual([`${delivery().key}.json`]);
  });

  test('each attempt is claimed by one process only, and says who', () => {
    createDelivery(root, delivery());
    const key = delivery().key;
    expect(claimAttempt(root, key, 1, '4242 12345')).toBe(true);
    expect(claimAttempt(root, key, 1, '4343 67890')).toBe(false);
    expect(readClaim(root, key, 1)).toEqual({ pid: 4242, startTime: '12345' });
    expect(claimAttempt(root, key, 2, '4343 67890')).toBe(true);
    expect(listOutbox(root).claims.get(key)).toBe(2);
  });

  test('the listing: deliveries, their highest claims and their done markers, in one read', () => {
    createDelivery(root, delivery());
    const other = delivery({ key: `${RUN}.9.bbbbbbbbbbbb` });
    createDelivery(root, other);
    claimAttempt(root, other.key, 1, '1 1');
    markDone(root, other.key, 'failed');
    expect(listOutbox(root)).toEqual({
      keys: [delivery().key, other.key],
      claims: new Map([[other.key, 1]]),
      done: new Map([[other.key, 'failed']]),
    });
  });

  test('removed with its claims and marker; an outbox that is not there lists empty', () => {
    createDelivery(root, delivery());
    claimAttempt(root, delivery().key, 1, '1 1');
    markDone(root, delivery().key, 'sent');
    removeDelivery(root, delivery().key, 1);
    expect(readdirSync(join(root, '.notify'))).toEqual([]);
    expect(listOutbox(join(root, 'nowhere'))).toEqual({ keys: [], claims: new Map(), done: new Map() });
  });
});

describe('outbox files read back as untrusted (issue 17)', () => {
  test('a claim numbered 2^53-1 is ignored, and a claim of spaces is no claim', () => {
    const notify = join(root, '.notify');
    mkdirSync(notify, { recursive: true });
    writeFileSync(join(notify, 'k.claim-9007199254740991'), '1 x\n');
    writeFileSync(join(notify, 'k.claim-1'), `1${' '.repeat(1 << 20)}x`.replace(' ', '\t'));
    expect(listOutbox(root).claims.get('k')).toBe(1);
    expect(readClaim(root, 'k', 1)).toBeNull();
    removeDelivery(root, 'k', Number.MAX_SAFE_INTEGER);
    expect(readdirSync(notify)).toEqual(['k.claim-9007199254740991']);
  });
});
