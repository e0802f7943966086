import type { RunState } from '../run/types.js';
import type { Observation } from './types.js';

// Which states are still going, and which have an agent at work: said once for every reader. Pure.

/** States of a run not yet finished: the dashboard lists them before finished runs. */
export const LIVE_STATES: readonly RunState[] = ['running', 'waiting', 'verifying', 'synthesizing', 'paused'];

/** States with an agent at work (exploring or writing the report). */
export const AGENT_STATES: readonly RunState[] = ['running', 'synthesizing'];

export const isLive = (state: string): boolean => (LIVE_STATES as readonly string[]).includes(state);

/** The state has an agent at work. */
export const hasAgent = (state: string): boolean => (AGENT_STATES as readonly string[]).includes(state);

/** The observed run's current session has a live agent, or a wrapper still about to start one. */
export function agentAlive(obs: Observation): boolean {
  const agent = obs.session?.agent;
  return !!agent && (agent.running || agent.wrapperAlive);
}
