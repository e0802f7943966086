import type { RunSpec, SessionRecord } from '../run/types.js';
import { fixOver } from '../verify/fix.js';
import { synthesisDeadline } from './ended-waits.js';
import { watchForHang } from './hang.js';
import type { RuleId } from './rules.js';
import type { Action, RunningAgent } from './types.js';

// What follows for a live agent: rule 4 of decide, an ordered list of named rules (4.1 to 4.6) over
// one value. The first with an answer decides. Pure.

/** The live session, as every rule below sees it. */
export interface Live {
  spec: RunSpec;
  session: SessionRecord;
  agent: RunningAgent;
  outputAt: Date | null;
  now: Date;
}

type LiveRule = (l: Live) => Action | null;

/** 4.1 Paid extra usage the run does not allow: stopped at once (not a crash), then waited out. */
const overage: LiveRule = ({ spec, agent }) => {
  if (!agent.overage || spec.allowOverage) return null;
  const window = agent.overage.window ? `the ${agent.overage.window} limit` : 'the usage limit';
  const reason = `paid extra usage: ${window} was reached and allow_overage is off`;
  return { kind: 'interrupt', cause: 'overage', reason: `${reason}; stopping until it resets` };
};

/** 4.2 A session's own deadline: the synthesis's budget, the fix session's verify_budget. */
const ownDeadline: LiveRule = ({ spec, session, now }) => {
  if (session.mode === 'fix') return fixOver(session.deadline, spec, now);
  if (session.mode !== 'synthesis' || now.getTime() < synthesisDeadline(spec, session).getTime()) return null;
  const reason = 'report incomplete: the synthesis was still running when its budget ran out';
  return { kind: 'finish', cause: 'report-incomplete', sentinel: 'DONE', reason, stopAgent: true };
};

/** 4.3 A question nobody will answer: the run fails; a synthesis or fix is stopped and tried again. */
const prompt: LiveRule = ({ session, agent }) => {
  const q = agent.promptSeen;
  if (!q) return null;
  if (session.mode === 'synthesis' || session.mode === 'fix') {
    const who = session.mode === 'synthesis' ? 'the synthesis' : 'the fix session';
    return {
      kind: 'interrupt',
      cause: 'prompt',
      hung: true,
      reason: `${who} is waiting for input nobody will give: "${q}"`,
    };
  }
  const reason = `the agent is waiting for input nobody will give: "${q}"`;
  return { kind: 'finish', cause: 'prompt', sentinel: 'FAILED', reason, stopAgent: true };
};

/** 4.4 The end time: exploring stops, the synthesis follows. */
const endTime: LiveRule = ({ spec, session, now }) =>
  session.mode === 'synthesis' || session.mode === 'fix' || now < spec.endsAt
    ? null
    : {
        kind: 'interrupt',
        cause: 'end-time',
        reason: 'end time reached: stopping exploration for the synthesis',
      };

/** 4.5 The hang watch: silence past stale_after is marked on disk, then stopped after hang_grace. */
const hang: LiveRule = ({ spec, session, agent, outputAt, now }) =>
  watchForHang(spec, session, agent, outputAt, now);

const DOING: Record<string, string> = { synthesis: 'writing the report', fix: 'fixing what the check found' };

/** 4.6 At work: nothing to do. */
const working: LiveRule = ({ session }) => ({
  kind: 'none',
  cause: 'working',
  reason: DOING[session.mode] ?? 'agent running',
});

export const LIVE_RULES: readonly (readonly [RuleId, LiveRule])[] = [
  ['4.1', overage],
  ['4.2', ownDeadline],
  ['4.3', prompt],
  ['4.4', endTime],
  ['4.5', hang],
  ['4.6', working],
];

export function decideLive(l: Live): Action {
  for (const [rule, decideBy] of LIVE_RULES) {
    const action = decideBy(l);
    if (action) return { ...action, rule };
  }
  throw new Error('no rule decided a live session'); // 4.6 always answers
}
