import type { RestartEntry, RunSpec, SessionMode, SessionRecord } from '../../src/core/run/types.js';
import type {
  AgentNotRunning,
  Observation,
  ObservedSession,
  RunningAgent,
} from '../../src/core/supervise/types.js';

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
    limits: {
      maxRestarts: 5,
      synthesisBudget: 1800,
      staleAfter: 1800,
      hangGrace: 300,
      backoff: 30,
      backoffMax: 600,
      healthyAfter: 600,
      minUptime: 60,
      limitMargin: 300,
      maxTranscript: 256 * 1024 * 1024,
      stopGrace: 10,
    },
    maxCost: null,
    paths: {
      claude: '/usr/bin/claude',
      tmux: '/usr/bin/tmux',
      node: '/usr/bin/node',
      cli: '/opt/overnight/bin/overnight.js',
      tmuxSocket: null,
    },
    ...over,
  };
}

/** The agent of a session, running. */
export function running(
  record: SessionRecord = session(),
  over: Partial<RunningAgent> = {},
): ObservedSession {
  return { ...record, agent: { running: true, promptSeen: null, staleSince: null, ...over } };
}

/** The agent of a session, not running: by default gone with nothing recorded about its end. */
export function ended(
  record: SessionRecord = session(),
  over: Partial<AgentNotRunning> = {},
): ObservedSession {
  return {
    ...record,
    agent: {
      running: false,
      wrapperAlive: false,
      exit: null,
      hung: false,
      result: null,
      limit: null,
      authFailures: 0,
      failedResumes: 0,
      conversation: null,
      costUsd: 0,
      transcriptBytes: 1000,
      ...over,
    },
  };
}

/** By default: the first session's agent is gone, nothing recorded about its end. */
export function observation(over: Partial<Observation> = {}): Observation {
  return {
    sentinel: null,
    paused: false,
    session: ended(),
    restarts: [],
    reportExists: false,
    outputAt: null,
    ...over,
  };
}

/** The observation as one flat record (the agent's facts beside the run's), for the older tables. */
export type FlatObservation = Omit<Observation, 'session'> & {
  session: SessionRecord | null;
  agentAlive: boolean;
} & Omit<RunningAgent, 'running'> &
  Omit<AgentNotRunning, 'running'>;

export function obs(over: Partial<FlatObservation> = {}): Observation {
  const { agentAlive, promptSeen, staleSince, session: record = session(), ...rest } = over;
  const { sentinel, paused, restarts, reportExists, outputAt, ...agent } = rest;
  const base = observation({
    ...(sentinel !== undefined ? { sentinel } : {}),
    ...(paused !== undefined ? { paused } : {}),
    ...(restarts !== undefined ? { restarts } : {}),
    ...(reportExists !== undefined ? { reportExists } : {}),
    ...(outputAt !== undefined ? { outputAt } : {}),
  });
  if (record === null) return { ...base, session: null };
  if (agentAlive)
    return {
      ...base,
      session: running(record, { promptSeen: promptSeen ?? null, staleSince: staleSince ?? null }),
    };
  return { ...base, session: ended(record, agent) };
}

// decide's tables: times of that night, sessions, exits and restart.log lines.

export const BEFORE_END = new Date('2026-11-22T03:00:00Z');
export const AFTER_END = new Date('2026-11-22T07:20:00Z');
// synthesis_budget is 30m by default: the synthesis may run until 07:45.
export const BUDGET_END = new Date('2026-11-22T07:45:00Z');
export const AFTER_BUDGET = new Date('2026-11-22T08:00:00Z');

export function session(mode: SessionMode = 'initial', n = 1): SessionRecord {
  return { n, mode, startedAt: STARTED };
}

export function exited(code: number) {
  return { code, at: new Date('2026-11-22T02:59:00Z') };
}

export function restarts(...modes: SessionMode[]): RestartEntry[] {
  return modes.map((mode, i) => ({
    at: new Date(Date.UTC(2026, 10, 22, 0, i)),
    mode,
    exit: 1,
    uptime: 3600,
    reason: 'agent ended (exit 1)',
  }));
}

export const crashes = (n: number): SessionMode[] => Array<SessionMode>(n).fill('resume');
