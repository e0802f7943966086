import { describe, expect, test } from 'vitest';

import { runPaths } from '../../src/core/run/paths.js';
import type { Sentinel } from '../../src/core/run/types.js';
import type { Action, Observation } from '../../src/core/supervise/types.js';
import { act } from '../../src/reconcile/act.js';
import type { PassContext } from '../../src/reconcile/context.js';
import { fakes } from './act-fakes.js';
import { at, BEFORE_END, done, observation, running, spec } from './builders.js';

// act with fake adapters: what each of decide's actions does to the run (its backend session, its
// check, its records, its timers) and what it records. No tmux, no files; the real adapters are
// tested by the integration tests.

const NOW = BEFORE_END;
const SPEC = spec();
const PATHS = runPaths('/home/me/overnight-runs', SPEC.id);

function ctx(over: Partial<PassContext> = {}): PassContext {
  const io = { stdout: () => {}, stderr: () => {}, env: {}, now: () => NOW };
  return { root: '/home/me/overnight-runs', settings: {} as PassContext['settings'], io, ...over };
}

const UNTIL = at('04:00');

const rows: {
  name: string;
  action: Action;
  obs?: Observation;
  sentinel?: Sentinel;
  armed?: boolean;
  want: boolean;
  calls: string[];
  events: Record<string, unknown>[];
}[] = [
  {
    name: 'none: nothing touched, nothing recorded',
    action: { kind: 'none', cause: 'working', reason: 'working' },
    want: false,
    calls: [],
    events: [],
  },
  {
    name: 'wait: the wake timer armed, the wait recorded',
    action: {
      kind: 'wait',
      cause: 'usage-limit',
      until: UNTIL,
      reason: 'usage limit',
      resetsAt: at('03:55'),
    },
    want: true,
    calls: [`arm-wake ${UNTIL.toISOString()}`],
    events: [
      {
        from: 'waiting',
        to: 'waiting',
        action: 'wait',
        cause: 'usage-limit',
        reason: 'usage limit',
        until: UNTIL.toISOString(),
        resetsAt: at('03:55').toISOString(),
      },
    ],
  },
  {
    name: 'wait with its timer armed already: nothing changed, nothing recorded',
    action: { kind: 'wait', cause: 'backoff', until: UNTIL, reason: 'backoff' },
    armed: false,
    want: false,
    calls: [`arm-wake ${UNTIL.toISOString()}`],
    events: [],
  },
  {
    name: 'finish stopping the agent: stopped, session removed, sentinel, then finalized',
    action: { kind: 'finish', cause: 'end-time', sentinel: 'DONE', reason: 'the end time', stopAgent: true },
    obs: observation({ session: running() }),
    want: true,
    calls: ['stop-agent 1', 'remove-session', 'sentinel DONE end-time', `finalize ${SPEC.id}`],
    events: [{ from: 'running', to: 'done', action: 'finish', cause: 'end-time', reason: 'the end time' }],
  },
  {
    name: 'finish of an ended agent: not stopped again',
    action: {
      kind: 'finish',
      cause: 'breaker',
      sentinel: 'FAILED',
      reason: 'too many crashes',
      stopAgent: false,
    },
    want: true,
    calls: ['remove-session', 'sentinel FAILED breaker', `finalize ${SPEC.id}`],
    events: [
      { from: 'waiting', to: 'failed', action: 'finish', cause: 'breaker', reason: 'too many crashes' },
    ],
  },
  {
    name: 'cleanup: the leftover agent stopped, no sentinel written',
    action: { kind: 'cleanup', cause: 'leftover-agent', reason: 'an agent left after the end' },
    obs: observation({ sentinel: done('done'), session: running() }),
    want: true,
    calls: ['stop-agent 1', 'remove-session', `finalize ${SPEC.id}`],
    events: [
      {
        from: 'done',
        to: 'done',
        action: 'cleanup',
        cause: 'leftover-agent',
        reason: 'an agent left after the end',
      },
    ],
  },
  {
    name: 'watch: the session marked stale',
    action: { kind: 'watch', cause: 'silent', reason: 'silent for 30m' },
    obs: observation({ session: running() }),
    want: true,
    calls: ['mark-stale 1'],
    events: [{ from: 'running', to: 'running', action: 'watch', cause: 'silent', reason: 'silent for 30m' }],
  },
  {
    name: 'interrupt of a hang: marked hung first, then stopped, the signal recorded',
    action: { kind: 'interrupt', cause: 'hang', reason: 'hung', hung: true },
    obs: observation({ session: running() }),
    want: true,
    calls: ['mark-hung 1', 'stop-agent 1'],
    events: [
      {
        from: 'running',
        to: 'waiting',
        action: 'interrupt',
        cause: 'hang',
        reason: 'hung',
        signal: 'SIGINT',
        hung: true,
      },
    ],
  },
  {
    name: 'start a resume: the session started, its number recorded',
    action: { kind: 'start', cause: 'crash', mode: 'resume', reason: 'crashed', exit: 1 },
    want: true,
    calls: ['start resume'],
    events: [
      {
        from: 'waiting',
        to: 'running',
        action: 'start',
        cause: 'crash',
        reason: 'crashed',
        session: 2,
        mode: 'resume',
        exit: 1,
      },
    ],
  },
  {
    name: 'start a fresh session: transcript archived, new conversation written, then started',
    action: {
      kind: 'start',
      cause: 'crash',
      mode: 'resume',
      reason: 'too big',
      exit: 1,
      fresh: { cause: 'transcript-too-large', text: 'transcript too big' },
    },
    want: true,
    calls: ['archive-transcript', 'write-spec new-conversation', 'start resume'],
    events: [
      {
        action: 'fresh-session',
        previous: SPEC.sessionId,
        conversation: 'new-conversation',
        archived: '/archive/old.jsonl',
      },
      {
        from: 'waiting',
        to: 'running',
        action: 'start',
        cause: 'crash',
        reason: 'too big',
        session: 2,
        mode: 'resume',
        exit: 1,
        fresh: 'transcript too big',
        conversation: 'new-conversation',
      },
    ],
  },
  {
    name: 'start after stop wrote a sentinel: nothing started',
    action: { kind: 'start', cause: 'crash', mode: 'resume', reason: 'crashed', exit: 1 },
    sentinel: done('stopped'),
    want: false,
    calls: [],
    events: [],
  },
  {
    name: 'check: its first try started',
    action: { kind: 'check', cause: 'verifying', step: 'final', reason: 'the check is due' },
    want: true,
    calls: ['start-check final 1'],
    events: [
      {
        from: 'waiting',
        to: 'verifying',
        action: 'check',
        cause: 'verifying',
        reason: 'the check is due',
        step: 'final',
        tries: 1,
      },
    ],
  },
  {
    name: 'check after stop wrote a sentinel: nothing started',
    action: { kind: 'check', cause: 'verifying', step: 'final', reason: 'the check is due' },
    sentinel: done('stopped'),
    want: false,
    calls: [],
    events: [],
  },
  {
    name: 'stop-check: the step killed',
    action: { kind: 'stop-check', cause: 'check-timeout', step: 'final', reason: 'past verify_timeout' },
    want: true,
    calls: ['stop-check final'],
    events: [
      {
        from: 'waiting',
        to: 'waiting',
        action: 'stop-check',
        cause: 'check-timeout',
        reason: 'past verify_timeout',
        step: 'final',
      },
    ],
  },
];

describe('act', () => {
  test.each(rows)('$name', async (row) => {
    const f = fakes({ sentinel: row.sentinel, armed: row.armed });
    const obs = row.obs ?? observation();
    const got = await act(SPEC, PATHS, obs, row.action, ctx(), NOW, f.deps);
    expect({ got, calls: f.calls, events: f.events }).toEqual({
      got: row.want,
      calls: row.calls,
      events: row.events.map((e) => expect.objectContaining(e)),
    });
  });

  test('a pass that lost its lock acts on nothing', async () => {
    const f = fakes();
    const action: Action = { kind: 'watch', cause: 'silent', reason: 'silent for 30m' };
    await expect(
      act(SPEC, PATHS, observation(), action, ctx({ lockLost: true }), NOW, f.deps),
    ).rejects.toThrow(/lock was lost/);
    expect(f.calls).toEqual([]);
  });

  describe("a repository run's agent without a shell: overnight commits what its session left", () => {
    const REPO = { path: '/src/app', base: 'b'.repeat(40), branch: 'overnight/r', worktree: '/w' };
    const start: Action = { kind: 'start', cause: 'crash', mode: 'resume', reason: 'crashed', exit: 1 };
    test.each([
      {
        name: 'no sandbox, no Bash: committed, then started',
        tools: ['Read'],
        obs: observation(),
        commits: true,
      },
      {
        name: 'a shell of its own: it commits itself',
        tools: ['Read', 'Bash'],
        obs: observation(),
        commits: false,
      },
      {
        name: 'the agent still running: nothing committed under it',
        tools: ['Read'],
        obs: observation({ session: running() }),
        commits: false,
      },
    ])('$name', async ({ tools, obs, commits }) => {
      const f = fakes();
      await act({ ...SPEC, repo: REPO, allowedTools: tools }, PATHS, obs, start, ctx(), NOW, f.deps);
      expect(f.calls[0]?.startsWith('commit ')).toBe(commits);
      expect(f.events.some((e) => e.action === 'commit')).toBe(commits);
    });

    test('a commit that fails is recorded, and the run goes on', async () => {
      const f = fakes({ commitFails: true });
      await act(
        { ...SPEC, repo: REPO, allowedTools: ['Read'] },
        PATHS,
        observation(),
        start,
        ctx(),
        NOW,
        f.deps,
      );
      expect(f.events[0]).toMatchObject({ action: 'commit-failed', error: /not on its branch/ });
      expect(f.calls.at(-1)).toBe('start resume');
    });
  });

  test('a session started is told what the previous one was and what it spent', async () => {
    const f = fakes();
    const action: Action = { kind: 'start', cause: 'crash', mode: 'resume', reason: 'crashed', exit: 1 };
    await act(SPEC, PATHS, observation(), action, ctx(), NOW, f.deps);
    expect(f.starts).toEqual([
      expect.objectContaining({ mode: 'resume', exit: 1, reason: 'crashed', now: NOW, spentUsd: 0 }),
    ]);
    expect(f.starts[0]?.previous?.n).toBe(1);
  });
});
