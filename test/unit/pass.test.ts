import { describe, expect, test } from 'vitest';

import type { Settings } from '../../src/core/config/settings.js';
import type { PassContext } from '../../src/reconcile/context.js';
import type { PassHooks } from '../../src/reconcile/hooks.js';
import type { PassDeps } from '../../src/reconcile/pass-deps.js';
import { runPass, type PassOptions } from '../../src/reconcile/pass.js';
import { RECHECK, type Outcome } from '../../src/reconcile/run.js';
import { BEFORE_END } from './builders.js';

// A pass with fake adapters and a fake clock: the lock, the rounds while passes are requested, the
// exit-race grace, the heartbeat, and where the notifications' hooks come (after each run is the
// run step's own; after the runs under the lock; after the lock). No tmux, no files, no waiting.

const ROOT = '/home/me/overnight-runs';
const SETTINGS = { runsDir: ROOT, notify: [] } as unknown as Settings;

type Step = Outcome | undefined | typeof RECHECK | 'lose-lock' | Error;

interface World {
  /** Run ids of each round's index. */
  ids: string[];
  /** What each look at a run gives, in order (the last one repeats). */
  steps?: Record<string, Step[]>;
  /** Whether another pass was requested, at each look (then no). */
  requested?: boolean[];
  lockHeld?: boolean;
  hooks?: boolean;
  /** The runs that asked for a pass meanwhile, at each look for them (then none). */
  runRequests?: string[][];
}

const act = (id: string, action: Outcome['action'] = 'start'): Outcome => ({ id, action, message: action });

function fakes(w: World) {
  const calls: string[] = [];
  const beats: unknown[] = [];
  const requested = [...(w.requested ?? [])];
  const runRequests = [...(w.runRequests ?? [])];
  const seen = new Map<string, number>();
  let t = 0;
  let onLost: ((err: Error) => void) | null = null;
  const hooks: PassHooks = {
    afterRun: async () => true,
    afterRuns: () => void calls.push('after-runs'),
    afterUnlock: async () => void calls.push('after-unlock'),
  };
  const deps: PassDeps = {
    root: {
      usable: () => true,
      lock: async (_path, lost) => {
        calls.push('lock');
        onLost = lost;
        return w.lockHeld ? null : async () => void calls.push('release');
      },
      requested: () => requested.shift() ?? false,
      request: () => void calls.push('request'),
      clearRequest: () => void calls.push('clear-request'),
      requestRun: (_root, id) => void calls.push(`request-run ${id}`),
      servedFirst: (_root, queue) => {
        for (const id of runRequests.shift() ?? []) {
          const at = queue.indexOf(id);
          if (at >= 0) queue.unshift(...queue.splice(at, 1));
        }
      },
    },
    runs: {
      live: () => (calls.push('live'), w.ids),
      peek: () => (calls.push('peek'), w.ids),
      reconcile: async (id, ctx: PassContext, opts) => {
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        calls.push(`look ${id}${opts.afterGrace ? ' after grace' : ''}`);
        const steps = w.steps?.[id] ?? [undefined];
        const step = steps[Math.min(n, steps.length - 1)];
        if (step === 'lose-lock') {
          onLost?.(new Error('lock compromised'));
          return undefined;
        }
        if (step instanceof Error) throw step;
        expect(ctx.lockLost).toBe(false);
        return step;
      },
    },
    heartbeat: { read: () => null, write: (_root, beat) => void beats.push(beat) },
    sweep: () => void calls.push('sweep'),
    hooks: async () => (w.hooks ? hooks : undefined),
    clock: {
      now: () => t,
      sleep: async (ms) => {
        calls.push(`sleep ${ms}`);
        t += ms;
      },
    },
  };
  const stderr: string[] = [];
  const io = { stdout: () => {}, stderr: (l: string) => stderr.push(l), env: {}, now: () => BEFORE_END };
  return { deps, io, calls, beats, stderr };
}

const rows: {
  name: string;
  world: World;
  opts?: PassOptions;
  want: { ran: boolean; actions: string[] };
  calls: string[];
  beat?: { runs: number; actions: number; lastError?: string };
}[] = [
  {
    name: 'two runs, one acted on: the heartbeat under the lock, the hooks at their moments',
    world: { ids: ['a', 'b'], steps: { a: [act('a')] }, hooks: true },
    want: { ran: true, actions: ['a start'] },
    calls: [
      'lock',
      'clear-request',
      'live',
      'look a',
      'look b',
      'after-runs',
      'sweep',
      'release',
      'after-unlock',
    ],
    beat: { runs: 2, actions: 1 },
  },
  {
    name: 'no notification target: no hooks at all',
    world: { ids: ['a'] },
    want: { ran: true, actions: [] },
    calls: ['lock', 'clear-request', 'live', 'look a', 'sweep', 'release'],
    beat: { runs: 1, actions: 0 },
  },
  {
    name: 'the exit race: one grace for every run caught in it, then each looked at again',
    world: { ids: ['a', 'b'], steps: { a: [RECHECK, act('a')], b: [RECHECK, undefined] } },
    want: { ran: true, actions: ['a start'] },
    calls: [
      'lock',
      'clear-request',
      'live',
      'look a',
      'look b',
      'sleep 2000',
      'look a after grace',
      'look b after grace',
      'sweep',
      'release',
    ],
    beat: { runs: 2, actions: 1 },
  },
  {
    name: 'a pass requested meanwhile: folded into this one as a second round',
    world: { ids: ['a'], requested: [true] },
    want: { ran: true, actions: [] },
    calls: ['lock', 'clear-request', 'live', 'look a', 'clear-request', 'live', 'look a', 'sweep', 'release'],
    beat: { runs: 1, actions: 0 },
  },
  {
    name: 'the lock held by another pass: a request left for it, nothing looked at',
    world: { ids: ['a'], lockHeld: true, hooks: true },
    want: { ran: false, actions: [] },
    calls: ['lock', 'request', 'lock'],
  },
  {
    name: 'the run whose agent just ended first, then one that asked meanwhile, then the rest',
    world: { ids: ['a', 'b', 'c'], runRequests: [[], ['b']] },
    opts: { forRun: 'c' },
    want: { ran: true, actions: [] },
    calls: ['lock', 'clear-request', 'live', 'look c', 'look b', 'look a', 'sweep', 'release'],
    beat: { runs: 3, actions: 0 },
  },
  {
    name: 'the lock held, asked for by a run: its run is requested beside the pass',
    world: { ids: ['a'], lockHeld: true },
    opts: { forRun: 'a' },
    want: { ran: false, actions: [] },
    calls: ['lock', 'request-run a', 'request', 'lock'],
  },
  {
    name: 'a run that fails: the others go on, the heartbeat names it',
    world: {
      ids: ['a', 'b'],
      steps: {
        a: [{ id: 'a', action: 'error', message: 'error: boom', error: { text: 'boom', errno: null } }],
        b: [act('b')],
      },
    },
    want: { ran: true, actions: ['a error', 'b start'] },
    calls: ['lock', 'clear-request', 'live', 'look a', 'look b', 'sweep', 'release'],
    beat: { runs: 2, actions: 2, lastError: 'a: boom' },
  },
  {
    name: 'the lock lost: nothing more under it (no tidying, no sweep), the outbox still served after',
    world: { ids: ['a'], steps: { a: ['lose-lock'] }, hooks: true },
    want: { ran: true, actions: [] },
    calls: ['lock', 'clear-request', 'live', 'look a', 'release', 'after-unlock'],
    beat: { runs: 1, actions: 0 },
  },
  {
    name: 'a dry run: no lock, no index made, no heartbeat, no hooks',
    world: { ids: ['a'], steps: { a: [act('a')] }, hooks: true },
    opts: { dryRun: true },
    want: { ran: true, actions: ['a start'] },
    calls: ['peek', 'look a'],
  },
];

describe('runPass', () => {
  test.each(rows)('$name', async ({ world, opts, want, calls, beat }) => {
    const f = fakes(world);
    const got = await runPass(SETTINGS, f.io, opts ?? {}, f.deps);
    expect({
      ran: got.ran,
      actions: got.outcomes.map((o) => `${o.id} ${o.action}`),
      calls: f.calls,
      beats: f.beats,
    }).toEqual({
      ...want,
      calls,
      beats: beat ? [expect.objectContaining({ ...beat, at: BEFORE_END })] : [],
    });
  });

  test('a pass that fails outright says so in the heartbeat, and lets go of the lock', async () => {
    const f = fakes({ ids: ['a'], steps: { a: [new Error('ENOSPC: no space left on device')] } });
    await expect(runPass(SETTINGS, f.io, {}, f.deps)).rejects.toThrow(/ENOSPC/);
    expect(f.calls).toEqual(['lock', 'clear-request', 'live', 'look a', 'release']);
    expect(f.beats).toEqual([expect.objectContaining({ runs: 0, lastError: expect.stringMatching(/./) })]);
  });
});
