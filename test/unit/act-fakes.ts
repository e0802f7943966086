import type { SessionStart } from '../../src/adapters/agent.js';
import type { Sentinel } from '../../src/core/run/types.js';
import type { ActDeps } from '../../src/reconcile/act-deps.js';

// act's adapters, faked for test/unit/act.test.ts.

/** Fake adapters that write down each call, in order, as a short line. */
export function fakes(opts: { sentinel?: Sentinel | null; armed?: boolean; commitFails?: boolean } = {}) {
  const calls: string[] = [];
  const events: Record<string, unknown>[] = [];
  const starts: SessionStart[] = [];
  const deps: ActDeps = {
    sessions: {
      start: async (s) => {
        starts.push(s);
        calls.push(`start ${s.mode}`);
        return { n: (s.previous?.n ?? 0) + 1, mode: s.mode, startedAt: s.now };
      },
      stopAgent: async (_spec, _paths, s) => {
        calls.push(`stop-agent ${s?.n ?? '-'}`);
        return 'SIGINT';
      },
      remove: async () => void calls.push('remove-session'),
    },
    checks: {
      start: async (_spec, _paths, step, _now, tries) => void calls.push(`start-check ${step} ${tries}`),
      stop: async (_paths, step) => void calls.push(`stop-check ${step}`),
      output: (_paths, step) => `/out/${step}.log`,
    },
    store: {
      append: (_paths, _at, e) => void events.push(e),
      markStale: (_paths, n) => void calls.push(`mark-stale ${n}`),
      markHung: (_paths, n) => void calls.push(`mark-hung ${n}`),
      readSentinel: () => opts.sentinel ?? null,
      writeSentinel: (_paths, kind, _reason, cause) => void calls.push(`sentinel ${kind} ${cause}`),
      readSessionLogs: () => [],
      writeSpec: async (_paths, s) => void calls.push(`write-spec ${s.sessionId}`),
      archiveTranscript: () => {
        calls.push('archive-transcript');
        return '/archive/old.jsonl';
      },
    },
    armWake: async (_spec, _paths, until) => {
      calls.push(`arm-wake ${until.toISOString()}`);
      return opts.armed ?? true;
    },
    finalize: async (id) => void calls.push(`finalize ${id}`),
    newSessionId: () => 'new-conversation',
    reviews: { start: async (_spec, _paths, _now, tries) => void calls.push(`start-review ${tries}`) },
    deliver: async (spec) => {
      calls.push('deliver');
      return spec.repo ? { commit: 'c'.repeat(40) } : {};
    },
    commitWork: async (spec, subject) => {
      calls.push(`commit ${subject}`);
      if (opts.commitFails) throw new Error('the worktree is not on its branch');
      return { commit: spec.repo ? 'c0ffee' : null, files: 2 };
    },
  };
  return { deps, calls, events, starts };
}
