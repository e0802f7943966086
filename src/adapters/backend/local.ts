import type { SessionRecord } from '../../core/run/types.js';
import { stopProcess, type StopGrace } from '../processes.js';
import { readAgent } from '../store.js';
import type { SessionRef } from './types.js';

// What the backends on this machine share: the agent is a local process group, recorded by pid
// and start time, signalled directly.

export async function interruptLocal(
  ref: SessionRef,
  session: SessionRecord,
  grace: StopGrace,
): Promise<'gone' | NodeJS.Signals> {
  const agent = readAgent(ref.paths, session);
  if (!agent) return 'gone';
  return stopProcess(agent.pid, agent.startTime, grace);
}
