import { formatDuration } from '../config/duration.js';
import type { RunSpec } from '../run/types.js';
import { fixSession } from '../verify/fix.js';
import type { CheckStep, ObservedCheck, VerifySpec } from '../verify/types.js';
import { verdictLine } from '../verify/verdict-text.js';
import { verifyResult } from '../verify/verdict.js';
import type { Action, Observation } from './types.js';

// 7.3 A run with a check (`verify`). The check is a step of its own, observed like a
// session and never run under the lock: on the base commit before a repository run's first
// session (the baseline), and at the end, before the synthesis or the run's end (the final check);
// with verify_budget, a failing final check gets one fix session and the check again (the recheck).
// Pure: decided from the observation alone.

/** A check whose process was lost (killed, the machine went down) is started again this many times. */
export const CHECK_RESTARTS = 1;

const LABEL: Record<CheckStep, string> = {
  baseline: 'baseline on the base commit',
  final: 'the final check',
  recheck: 'the check after the fix',
  review: 'the review',
};

/**
 * The step's next action while it is not over; null once it has ended (exited, killed at its
 * timeout, or lost again after its restart).
 */
export function checkGate(
  verify: Pick<VerifySpec, 'command' | 'timeout'>,
  step: CheckStep,
  c: ObservedCheck | undefined,
  now: Date,
): Action | null {
  const cmd = `\`${verify.command}\``;
  const doing = step === 'review' ? 'reviewing' : 'verifying';
  const limit = step === 'review' ? 'review_budget' : 'verify_timeout';
  if (!c) return { kind: 'check', cause: doing, step, reason: `${LABEL[step]}: running ${cmd}` };
  if (c.state === 'starting')
    return { kind: 'none', cause: doing, reason: `${doing}: ${LABEL[step]} is starting` };
  if (c.state === 'running') {
    if (now.getTime() >= c.startedAt.getTime() + verify.timeout * 1000) {
      const reason = `${LABEL[step]} ran past ${limit} (${formatDuration(verify.timeout)}): killing it`;
      return { kind: 'stop-check', cause: 'check-timeout', step, reason };
    }
    return { kind: 'none', cause: doing, reason: `${doing}: ${LABEL[step]} (${cmd}) is running` };
  }
  if (c.state === 'lost' && c.tries <= CHECK_RESTARTS) {
    const reason = `${LABEL[step]}'s process was lost (killed, or the machine went down); running it again`;
    return { kind: 'check', cause: 'check-lost', step, reason, again: true };
  }
  return null;
}

/** The rule, applied to what the rest of decide chose: the check goes first where one is due. */
export function verifyStep(spec: RunSpec, obs: Observation, now: Date, next: Action): Action {
  const verify = spec.verify;
  if (!verify || obs.sentinel || obs.paused) return next;
  const checks = obs.checks ?? {};
  // The baseline: a repository run's first session waits for the check on the base commit.
  if (spec.repo && !obs.session && next.kind === 'start' && next.mode === 'initial') {
    const gate = checkGate(verify, 'baseline', checks.baseline, now);
    if (gate) return gate;
    return { ...next, reason: `${next.reason} (baseline taken)` };
  }
  // After the fix session, the check runs again: its verdict is the night's.
  const step = checks.recheck || obs.session?.mode === 'fix' ? 'recheck' : 'final';
  const gate = checkGate(verify, step, checks[step], now);
  if (!endsTheWork(obs, next)) {
    // The run's end says the verdict (the notification and the sentinel carry it).
    const over = next.kind === 'finish' && next.sentinel === 'DONE' && checks[step] && !gate;
    return over
      ? { ...next, reason: `${next.reason}; ${verdictLine(verifyResult(verify, checks, null))}` }
      : next;
  }
  if (gate) return gate;
  const result = verifyResult(verify, checks, null);
  const fix = fixSession(spec, obs, result, now, next);
  if (fix) return fix;
  const line = verdictLine(result);
  if (next.kind !== 'start') return { ...next, reason: `${next.reason}; ${line}` };
  // The check's time is not taken from the report's: the synthesis gets its whole budget from now.
  const budgetEnd = spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000;
  const from = Math.max(
    next.deadline?.getTime() ?? budgetEnd,
    now.getTime() + spec.limits.synthesisBudget * 1000,
  );
  const deadline = from > budgetEnd ? { deadline: new Date(from) } : {};
  return { ...next, reason: `${next.reason}; ${line}`, ...deadline };
}

/**
 * The agent's work is over: the synthesis is due, or the run ends without one (the agent wrote its
 * report itself). A synthesis being tried again comes after the check and is left alone.
 */
export function endsTheWork(obs: Observation, next: Action): boolean {
  const session = obs.session;
  if (!session || session.mode === 'synthesis') return false;
  if (next.kind === 'start') return next.mode === 'synthesis';
  return next.kind === 'finish' && next.sentinel === 'DONE' && !next.stopAgent;
}
