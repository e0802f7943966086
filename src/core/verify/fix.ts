import { humanTime } from '../agent/briefing.js';
import { formatDuration } from '../config/duration.js';
import type { RunSpec } from '../run/types.js';
import type { Action, Observation } from '../supervise/types.js';
import { oneLine } from '../text.js';
import { lostTests } from './verdict-text.js';
import type { VerifyResult } from './verdict.js';

// verify_budget: when the final check fails and time is left in the budget (counted from the end
// time), the agent gets one fix session before the synthesis, told the failures, and the check
// runs again after it. Pure.

/** Failing names the fix prompt lists at most. */
const FIX_NAMES = 20;

/** When the budget's time runs out: the end time plus verify_budget. */
export function fixDeadline(spec: RunSpec): Date | null {
  const budget = spec.verify?.budget ?? 0;
  return budget > 0 ? new Date(spec.endsAt.getTime() + budget * 1000) : null;
}

/**
 * The fix session in place of `next` (the synthesis, or DONE for an agent that wrote its report
 * itself), or null: no budget, no time left in it, a verdict that is not a failure, or the fix
 * already had.
 */
export function fixSession(
  spec: RunSpec,
  obs: Observation,
  result: VerifyResult,
  now: Date,
  next: Action,
): Action | null {
  const deadline = fixDeadline(spec);
  if (!deadline || now >= deadline || result.verdict !== 'not-verified') return null;
  if (obs.checks?.recheck || obs.session?.mode === 'fix') return null;
  const left = formatDuration(Math.round((deadline.getTime() - now.getTime()) / 1000));
  const failed = `the final check failed (${result.newFailureCount} new)`;
  const reason = `${failed}; one fix session with ${left} of verify_budget left`;
  // A conversation that cannot be resumed starts fresh, as decide found for the synthesis.
  const fresh = next.kind === 'start' && next.fresh ? { fresh: next.fresh } : {};
  return { kind: 'start', cause: 'verify-fix', mode: 'fix', reason, exit: null, deadline, ...fresh };
}

/** What the fix session is told: the failures, the time it has, and that the check runs again. */
export function fixPrompt(result: VerifyResult, deadline: Date | undefined, repo: boolean): string {
  const names = result.newFailures.slice(0, FIX_NAMES).map((n) => `- ${oneLine(n, 200)}`);
  const more =
    result.newFailures.length > FIX_NAMES ? [`- … and ${result.newFailures.length - FIX_NAMES} more`] : [];
  const list = names.length > 0 ? `\n${[...names, ...more].join('\n')}\n` : ' (its output names none).\n';
  const lost = lostTests(result.accounting, FIX_NAMES)
    .map((l) => `- ${oneLine(l, 400)}\n`)
    .join('');
  const until = deadline ? ` until ${humanTime(deadline)}` : '';
  const commit = repo ? ' Commit your fixes on your branch.' : '';
  return (
    `Time is up for exploring, but the check \`${result.command}\`, which overnight ran itself, ` +
    `shows ${result.newFailureCount} new failure${result.newFailureCount === 1 ? '' : 's'}` +
    `${names.length > 0 ? ':' : ''}${list}` +
    (lost ? `And tests that passed before the night no longer do; each must pass again:\n${lost}` : '') +
    (result.output ? `Its output is in ${result.output}.\n` : '') +
    `You have this one session${until} to fix what the night broke: run the check, fix the ` +
    `failures, run it again.${commit} Do not start anything new and do not write the report yet: ` +
    'overnight runs the check again when this session ends, then asks for the report.\n'
  );
}

/** The interrupt of a fix session whose budget ran out, or null while it has time. */
export function fixOver(deadline: Date | undefined, spec: RunSpec, now: Date): Action | null {
  const until = deadline ?? fixDeadline(spec) ?? spec.endsAt;
  if (now < until) return null;
  const budget = formatDuration(spec.verify?.budget ?? 0);
  const reason = `verify_budget (${budget}) spent: stopping the fix session; the check runs again`;
  return { kind: 'interrupt', cause: 'fix-time', reason };
}
