import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { removeDelivery } from '../../src/adapters/outbox.js';
import { defaultSettings, type Settings } from '../../src/core/config/settings.js';
import { deliveryKey } from '../../src/core/notify/delivery.js';
import { dayOf, DIGEST_RUN } from '../../src/core/notify/digest.js';
import type { CommandTarget } from '../../src/core/notify/targets.js';
import { queueDigests } from '../../src/notify/digest.js';
import { tidyOutbox } from '../../src/notify/dispatch.js';

// The digest is gathered outside the pass lock, so passes may gather it at once: each target's day
// is claimed once (an O_EXCL marker in the outbox) before its delivery is made, and a claimed day
// is never queued again, even once its delivery is tidied away. In process, no tmux: two
// gatherers interleave at every await, both past the first look before either claims.

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'overnight-claim-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const target = (id: string): CommandTarget => ({
  kind: 'command',
  id,
  label: `command ${id}`,
  on: ['digest'],
  at: '00:00',
  command: 'true',
  args: [],
});

function contextFor(targets: CommandTarget[]) {
  const settings: Settings = { ...defaultSettings(home), notify: targets };
  mkdirSync(settings.runsDir, { recursive: true, mode: 0o700 });
  const warnings: string[] = [];
  const io = { stdout: () => {}, stderr: (l: string) => warnings.push(l), env: {}, now: () => new Date() };
  return { ctx: { root: settings.runsDir, settings, io }, warnings };
}

const outbox = (root: string) => readdirSync(join(root, '.notify'));
const digests = (root: string) =>
  outbox(root).filter((f) => f.startsWith(`${DIGEST_RUN}.`) && f.endsWith('.json'));
const claims = (root: string) => outbox(root).filter((f) => f.startsWith('.day-'));

describe('the day of a digest is claimed once', () => {
  test.each([
    { name: 'two gatherers at once, one target', gatherers: 2, targets: ['aaa111'] },
    { name: 'three gatherers at once, two targets', gatherers: 3, targets: ['aaa111', 'bbb222'] },
  ])('$name: one delivery and one claim per target', async ({ gatherers, targets }) => {
    const { ctx, warnings } = contextFor(targets.map(target));
    const now = new Date();
    await Promise.all(Array.from({ length: gatherers }, () => queueDigests(ctx, now)));
    expect(warnings).toEqual([]);
    expect(digests(ctx.root).sort()).toEqual(
      targets.map((t) => `${deliveryKey(DIGEST_RUN, dayOf(now), t)}.json`).sort(),
    );
    expect(claims(ctx.root)).toHaveLength(targets.length);
  });

  test('a day whose delivery was tidied away is not queued again', async () => {
    const { ctx } = contextFor([target('aaa111')]);
    const now = new Date();
    await queueDigests(ctx, now);
    removeDelivery(ctx.root, deliveryKey(DIGEST_RUN, dayOf(now), 'aaa111'), 0);
    expect(digests(ctx.root)).toEqual([]);
    await queueDigests(ctx, now);
    expect(digests(ctx.root)).toEqual([]);
  });

  test('tidying keeps the claims of the last days and removes older ones', async () => {
    const { ctx } = contextFor([target('aaa111')]);
    const now = new Date();
    const daysAgo = (n: number) => new Date(now.getTime() - n * 24 * 3600_000);
    for (const n of [0, 1, 2, 3, 10]) await queueDigests(ctx, daysAgo(n));
    expect(claims(ctx.root)).toHaveLength(5);
    tidyOutbox(ctx.root, now);
    expect(claims(ctx.root).sort()).toEqual(
      [0, 1, 2].map((n) => `.day-${deliveryKey(DIGEST_RUN, dayOf(daysAgo(n)), 'aaa111')}`).sort(),
    );
  });
});
