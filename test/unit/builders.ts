import type { Observation, RunSpec } from '../../src/core/types.js';

// Values for the pure core's table tests: a night from 23:15 to 07:15 (UTC), default limits.

export const STARTED = new Date('2026-11-21T23:15:00Z');
export const ENDS = new Date('2026-11-22T07:15:00Z');

export function spec(over: Partial<RunSpec> = {}): RunSpec {
  return {
    id: '2026-11-21-2315-survey-crdt',
    task: 'Survey CRDT libraries for offline sync',
    model: null,
    startedAt: STARTED,
    endsAt: ENDS,
    sessionId: '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a',
    permissionMode: 'acceptEdits',
    allowedTools: ['Read', 'Write'],
    limits: { maxRestarts: 5, synthesisBudget: 1800, staleAfter: 1800, hangGrace: 300, backoff: 30, backoffMax: 600, healthyAfter: 600, minUptime: 60, limitMargin: 300, maxTranscript: 256 * 1024 * 1024, stopGrace: 10 },
    maxCost: null,
    paths: { claude: '/usr/bin/claude', tmux: '/usr/bin/tmux', node: '/usr/bin/node', cli: '/opt/overnight/bin/overnight.js', tmuxSocket: null },
    ...over,
  };
}

/** By default: the first session's agent is gone, nothing recorded about its end. */
export function obs(over: Partial<Observation> = {}): Observation {
  return {
    sentinel: null,
    paused: false,
    session: { n: 1, mode: 'initial', startedAt: STARTED },
    agentAlive: false,
    wrapperAlive: false,
    exit: null,
    restarts: [],
    reportExists: false,
    outputAt: null,
    staleSince: null,
    hung: false,
    promptSeen: null,
    authFailures: 0,
    transcriptBytes: 1000,
    failedResumes: 0,
    costUsd: 0,
    conversation: null,
    limit: null,
    result: null,
    ...over,
  };
}
