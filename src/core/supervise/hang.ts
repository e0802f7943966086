import { formatDuration } from '../config/duration.js';
import type { RunSpec, SessionRecord } from '../run/types.js';
import type { Action, RunningAgent } from './types.js';

/**
 * A live agent silent for `stale_after` is watched (the time is kept on disk: passes have no
 * memory); still silent `hang_grace` later, it is stopped and resumed as a crash. Fresh output
 * makes an older mark stale itself. Null while the agent is not silent.
 */
export function watchForHang(
  spec: RunSpec,
  session: SessionRecord,
  agent: RunningAgent,
  outputAt: Date | null,
  now: Date,
): Action | null {
  const lastOutput = outputAt && outputAt > session.startedAt ? outputAt : session.startedAt;
  const silent = (now.getTime() - lastOutput.getTime()) / 1000;
  if (silent < spec.limits.staleAfter) return null;
  const marked = agent.staleSince;
  const since = marked && marked >= lastOutput ? marked : null;
  const quiet = formatDuration(silent);
  if (!since) {
    const grace = formatDuration(spec.limits.hangGrace);
    return {
      kind: 'watch',
      cause: 'silent',
      reason: `no output for ${quiet}; stopping it if still silent in ${grace}`,
    };
  }
  if ((now.getTime() - since.getTime()) / 1000 < spec.limits.hangGrace) {
    return { kind: 'none', cause: 'silent', reason: `silent for ${quiet}; watching` };
  }
  return { kind: 'interrupt', cause: 'hang', hung: true, reason: `no output for ${quiet}` };
}
