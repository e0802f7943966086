import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { requestRun, servedFirst } from '../../src/reconcile/run-requests.js';

const A = '2026-11-26-0101-a';
const B = '2026-11-26-0102-b';
const C = '2026-11-26-0103-c';
let dir: string;

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'ovr-')), '.pass-requests');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

describe('runs that ask for a pass while another holds the lock', () => {
  it('are served before the rest of the round, and their requests taken', () => {
    requestRun(dir, C);
    const queue = [A, B, C];
    servedFirst(dir, queue, [A, B, C]);
    expect(queue).toEqual([C, A, B]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a run already served this round keeps its request for the next round', () => {
    requestRun(dir, A);
    const queue = [B, C];
    servedFirst(dir, queue, [A, B, C]);
    expect(queue).toEqual([B, C]);
    expect(readdirSync(dir)).toEqual([A]);
  });

  it('a request for no live run is dropped; a name that is no run id is never written', () => {
    requestRun(dir, A);
    requestRun(dir, '../escape');
    servedFirst(dir, [B], [B]);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, '..', 'escape'))).toBe(false);
  });

  it('no requests: the round keeps its order', () => {
    const queue = [A, B];
    servedFirst(dir, queue, [A, B]);
    expect(queue).toEqual([A, B]);
  });
});
