import { describe, expect, it } from 'vitest';

import { serveRequests, type PassResult } from '../../src/reconcile/requests.js';

const ran: PassResult = { ran: true, outcomes: [] };
const busy: PassResult = { ran: false, outcomes: [] };

describe('pass requests that come while a pass holds the lock', () => {
  it('a request left after the last look is served once the lock is free', async () => {
    let marker = false;
    const calls: boolean[] = [];
    const result = await serveRequests(
      async (again) => {
        calls.push(again);
        // The first pass: a request arrives after its last look, before it lets go.
        marker = !again;
        return ran;
      },
      () => marker,
    );
    expect(calls).toEqual([false, true]);
    expect(result.ran).toBe(true);
  });

  it('no request: one pass', async () => {
    const calls: boolean[] = [];
    await serveRequests(
      async (again) => (calls.push(again), ran),
      () => false,
    );
    expect(calls).toEqual([false]);
  });

  it('a pass that did not get the lock leaves the request to the holder', async () => {
    const calls: boolean[] = [];
    const result = await serveRequests(
      async (again) => (calls.push(again), busy),
      () => true,
    );
    expect(calls).toEqual([false]);
    expect(result.ran).toBe(false);
  });

  it('another pass took the lock first: it serves the request, this one stops', async () => {
    const calls: boolean[] = [];
    await serveRequests(
      async (again) => (calls.push(again), again ? busy : ran),
      () => true,
    );
    expect(calls).toEqual([false, true]);
  });

  it('bounded: requests that keep coming are left to the next pass', async () => {
    let n = 0;
    await serveRequests(
      async () => (n++, ran),
      () => true,
    );
    expect(n).toBe(4);
  });
});
