import { describe, expect, test } from 'vitest';

import type { WrapperRef } from '../../src/adapters/agent.js';
import type { Backend } from '../../src/adapters/backend/index.js';
import { runPaths } from '../../src/core/run/paths.js';
import type { Sentinel, SessionRecord } from '../../src/core/run/types.js';
import type { FinalizeDeps } from '../../src/reconcile/finalize-deps.js';
import { finalizeFinished, type Finalized } from '../../src/reconcile/finalize.js';
import type { PassHooks } from '../../src/reconcile/hooks.js';
import { BEFORE_END, done, session, spec } from './builders.js';

// finalize with fake adapters and a fake clock: when a finished run is settled (nothing of it can
// start an agent any more), what is stopped, and when it is summarized and out of later passes.
// No tmux, no files, no waiting.

const NOW = BEFORE_END;
const SPEC = spec();
const PATHS = runPaths('/home/me/overnight-runs', SPEC.id);
const AGENT = { pid: 4242, startTime: '12345' };

interface World {
  sentinel?: Sentinel | null;
  /** run.yaml unusable. */
  badSpec?: boolean;
  session?: SessionRecord | null;
  agent?: typeof AGENT | null;
  exitRecorded?: boolean;
  /** How many stops the agent takes to end (0: it is gone already). */
  stopsToEnd?: number;
  /** How many times the wrapper is still seen running (then gone). */
  wrapperLooks?: number;
  /** Whether the run's transitions could be queued (a hook exists). */
  queued?: boolean;
}

function fakes(w: World) {
  const calls: string[] = [];
  let t = 0;
  let alive = w.stopsToEnd ?? 0;
  let wrapper = w.wrapperLooks ?? 0;
  const deps: FinalizeDeps = {
    store: {
      readSentinel: () => (w.sentinel === undefined ? done('the agent finished') : w.sentinel),
      readSpec: async () => {
        if (w.badSpec) throw new Error('run.yaml: not YAML');
        return SPEC;
      },
      readSession: () => (w.session === undefined ? session() : w.session),
      readAgent: (_p, s) => (s && w.agent !== undefined ? w.agent : s ? AGENT : null),
      exitRecorded: () => w.exitRecorded ?? false,
    },
    sessions: {
      wrapper: (spec, id, paths) => {
        calls.push(spec ? 'wrapper of its backend' : 'wrapper of any backend');
        return { backend: {} as Backend, ref: { id, paths } } satisfies WrapperRef;
      },
      stopAgent: async () => {
        const how = alive-- > 0 ? 'SIGINT' : 'gone';
        calls.push(`stop-agent ${how}`);
        return how;
      },
      running: async () => wrapper-- > 0,
      remove: async () => void calls.push('remove-session'),
    },
    processes: {
      isAlive: async () => alive > 0,
      endLeftoverGroup: (pid) => void calls.push(`end-group ${pid}`),
    },
    cancelWakeTimer: async () => void calls.push('cancel-timers'),
    forgetSecrets: () => void calls.push('forget-secrets'),
    summarize: async () => void calls.push('summarize'),
    markFinished: (_p, e) => void calls.push(`mark-finished ${e.state}`),
    clock: {
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    },
  };
  const hooks: PassHooks | undefined =
    w.queued === undefined
      ? undefined
      : {
          afterRun: async () => (calls.push('queue-transitions'), w.queued as boolean),
          afterRuns: () => {},
          afterUnlock: async () => {},
        };
  return { deps, hooks, calls };
}

const SUMMARIZED = ['remove-session', 'forget-secrets', 'summarize', 'mark-finished done'];

const rows: { name: string; world: World; waitMs?: number; want: Finalized | null; calls: string[] }[] = [
  {
    name: 'a live run (no sentinel): left alone',
    world: { sentinel: null },
    want: null,
    calls: [],
  },
  {
    name: 'its end recorded: settled, the leftover group ended, then summarized',
    world: { exitRecorded: true },
    want: { stopped: false, settled: true, summarized: true },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent gone',
      `end-group ${AGENT.pid}`,
      ...SUMMARIZED,
    ],
  },
  {
    name: 'an agent still running: stopped, seen gone, then summarized',
    world: { stopsToEnd: 1 },
    want: { stopped: true, settled: true, summarized: true },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent SIGINT',
      `end-group ${AGENT.pid}`,
      ...SUMMARIZED,
    ],
  },
  {
    name: 'an agent that outlives its stop, nobody waiting: not settled, the next pass looks again',
    world: { stopsToEnd: 5 },
    want: { stopped: true, settled: false, summarized: false },
    calls: ['wrapper of its backend', 'cancel-timers', 'stop-agent SIGINT'],
  },
  {
    name: 'the same, waited for (stop): settled once it is gone',
    world: { stopsToEnd: 2 },
    waitMs: 15_000,
    want: { stopped: true, settled: true, summarized: true },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent SIGINT',
      'stop-agent SIGINT',
      `end-group ${AGENT.pid}`,
      ...SUMMARIZED,
    ],
  },
  {
    name: 'no agent record, its wrapper still running, nobody waiting: not settled',
    world: { agent: null, wrapperLooks: 1 },
    want: { stopped: false, settled: false, summarized: false },
    calls: ['wrapper of its backend', 'cancel-timers', 'stop-agent gone'],
  },
  {
    name: 'no agent record, its wrapper running, waited for: settled once the wrapper is out',
    world: { agent: null, wrapperLooks: 2 },
    waitMs: 15_000,
    want: { stopped: false, settled: true, summarized: true },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent gone',
      'stop-agent gone',
      'stop-agent gone',
      ...SUMMARIZED,
    ],
  },
  {
    name: 'no session recorded: settled at once',
    world: { session: null },
    want: { stopped: false, settled: true, summarized: true },
    calls: ['wrapper of its backend', 'cancel-timers', 'stop-agent gone', ...SUMMARIZED],
  },
  {
    name: 'run.yaml unusable: every backend asked, the run finished without a summary',
    world: { badSpec: true, exitRecorded: true },
    want: { stopped: false, settled: true, summarized: true },
    calls: [
      'wrapper of any backend',
      'cancel-timers',
      'stop-agent gone',
      `end-group ${AGENT.pid}`,
      'remove-session',
      'forget-secrets',
      'mark-finished done',
    ],
  },
  {
    name: 'its transitions queued first, then summarized',
    world: { exitRecorded: true, queued: true },
    want: { stopped: false, settled: true, summarized: true },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent gone',
      `end-group ${AGENT.pid}`,
      'remove-session',
      'queue-transitions',
      'forget-secrets',
      'summarize',
      'mark-finished done',
    ],
  },
  {
    name: 'its transitions not queued (a full disk): not summarized, the next pass tries again',
    world: { exitRecorded: true, queued: false },
    want: { stopped: false, settled: true, summarized: false },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent gone',
      `end-group ${AGENT.pid}`,
      'remove-session',
      'queue-transitions',
    ],
  },
  {
    name: 'FAILED: marked failed in the finished index',
    world: { sentinel: { kind: 'FAILED', reason: 'too many crashes', cause: 'breaker' }, exitRecorded: true },
    want: { stopped: false, settled: true, summarized: true },
    calls: [
      'wrapper of its backend',
      'cancel-timers',
      'stop-agent gone',
      `end-group ${AGENT.pid}`,
      'remove-session',
      'forget-secrets',
      'summarize',
      'mark-finished failed',
    ],
  },
];

describe('finalizeFinished', () => {
  test.each(rows)('$name', async ({ world, waitMs, want, calls }) => {
    const f = fakes(world);
    const got = await finalizeFinished(SPEC.id, PATHS, NOW, f.hooks, { waitMs }, f.deps);
    expect({ got, calls: f.calls }).toEqual({ got: want, calls });
  });
});
