import { blockerOf } from './blocked.js';
import { parseCause, type Cause } from './causes.js';

// Runs recorded before cause codes said their decisions only in prose: read here, once, with the
// patterns the readers used then. Nothing recorded since is read this way. Pure.

/** Reasons in the order they were told apart; the first that matches names the cause. */
const PATTERNS: readonly [RegExp, Cause][] = [
  [/^finished: REPORT\.md written/, 'report-written'],
  [/^report incomplete\b/, 'report-incomplete'],
  [/^no report: the end time passed before the agent ever started/, 'never-started'],
  [/^no report: .*lifts only after late_report/, 'limit-outlasts'],
  [/^no report\b/, 'no-report'],
  [/^stopped by user\b/, 'stopped'],
  [/^finished early by user\b/, 'finished-early'],
  [/^authentication failed \d+ times/, 'refused-login'],
  [/^authentication failed\b/, 'login-retry'],
  [/waiting for input nobody will give/, 'prompt'],
  [/^usage limit that waiting will not lift/, 'hard-limit'],
  [/^circuit breaker\b/, 'breaker'],
  [/^spend cap\b/, 'spend-cap'],
  [/^the API (?:kept failing|failed)\b/, 'api-trouble'],
  [/^the worktree .* is gone\b/, 'worktree-gone'],
  [/is present but an agent is still running$/, 'leftover-agent'],
  [/^hung\b/, 'hang'],
  [/^(?:no output for|silent for)\b/, 'silent'],
  [/^end time reached\b/, 'end-time'],
  [/^report late\b/, 'report-late'],
  [/^usage limit lifted\b/, 'limit-lifted'],
  [/\boverage\b|extra usage/i, 'overage'],
  [/^the synthesis ended without REPORT\.md/, 'synthesis-retry'],
  [/backing off/i, 'backoff'],
  [/limit/i, 'usage-limit'],
  [/, time left$/, 'time-left'],
  [/^stopped as hung\b/, 'hang'],
  [/^(?:agent ended|interrupted without a result)|perhaps out of memory|output-token cap/, 'crash'],
  [/^(?:agent running|writing the report)$/, 'working'],
  [/^agent starting or just ended$/, 'starting'],
  [/^first session was never started$/, 'first-session'],
  [/never started its agent$/, 'start-again'],
  [/^paused$/, 'paused'],
];

/** The cause of a reason recorded before cause codes; `unknown` when no pattern knows it. */
export function legacyCause(text: string): Cause {
  // Reasons overnight wrote are short; a long one read back is cut first, so the patterns stay cheap.
  const reason = text.slice(0, 2048);
  // "… (account_on_hold: …); no restart can fix that: …": the CLI's error type names it.
  const blocked = /\(([a-z_]+)[:)].*; no restart can fix that: /.exec(reason);
  const blocker = blocked ? blockerOf(blocked[1]) : null;
  if (blocker) return blocker.cause;
  for (const [pattern, cause] of PATTERNS) if (pattern.test(reason)) return cause;
  return 'unknown';
}

/** A record's cause: its code when it has a valid one, else read from its reason. */
export function causeOf(record: { cause?: unknown; reason?: unknown }): Cause {
  return parseCause(record.cause) ?? legacyCause(typeof record.reason === 'string' ? record.reason : '');
}

/**
 * A hang's reason without the `hung:` its line began with before the cause said so (the `hang`
 * cause and the line's `hung` flag say it now); a reason of this version is returned as it is.
 */
export function hangWords(reason: string): string {
  return reason.replace(/^hung:\s*/i, '');
}
