import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { rootPaths } from '../../src/core/run/paths.js';
import { servedFirstOnceAsked } from '../../src/reconcile/pass-deps.js';

// The runs that asked for a pass go first: their requests are listed at a round's first look, and
// again only once a pass request comes (a run asks just before it asks for a pass).

const A = '2026-11-21-2315-a';
const B = '2026-11-21-2315-b';
const C = '2026-11-21-2315-c';

let root: string;
const ask = (id: string) => {
  mkdirSync(rootPaths(root).runRequests, { recursive: true });
  writeFileSync(join(rootPaths(root).runRequests, id), '');
};
const asked = (id: string) => existsSync(join(rootPaths(root).runRequests, id));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'run-requests-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('runs served first', () => {
  test('listed at the round’s first look, then only while a pass request is there', () => {
    const served = servedFirstOnceAsked();
    const live = [A, B, C];
    ask(B);
    const queue = [A, B, C];
    served(root, queue, live);
    expect(queue).toEqual([B, A, C]);
    expect(asked(B)).toBe(false);

    queue.shift();
    ask(C);
    served(root, queue, live);
    expect(queue).toEqual([A, C]);
    expect(asked(C)).toBe(true);

    writeFileSync(rootPaths(root).passRequested, '');
    served(root, queue, live);
    expect(queue).toEqual([C, A]);
    expect(asked(C)).toBe(false);

    // The next round looks again, pass request or not.
    rmSync(rootPaths(root).passRequested);
    ask(A);
    const next = [B, A];
    served(root, next, live);
    expect(next).toEqual([A, B]);
  });
});
