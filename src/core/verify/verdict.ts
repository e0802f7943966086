import type { ObservedCheck, ObservedChecks, TestCounts, VerifySpec } from './types.js';

// The verdict: overnight's, from exit codes and counts, never from the agent's words.

export type Verdict = 'verified' | 'not-verified' | 'error' | 'none';

/** A step's counts as result.json carries them. */
export interface StepResult {
  passed: number | null;
  failed: number | null;
  failures: string[];
  exit: number | null;
  state: string;
}

/** result.json's and `status --json`'s `verify`. */
export interface VerifyResult {
  command: string | null;
  verdict: Verdict;
  baseline: StepResult | null;
  final: StepResult | null;
  newFailures: string[];
  /** How many new failures when the format gives counts but no names. */
  newFailureCount: number;
  /** The final check's output file (in overnight's records). */
  output: string | null;
  /** Why the verdict is `error`, in a line. */
  error?: string;
}

/** Exit statuses that say the command never ran: not found, not executable. */
const CANNOT_RUN = new Set([126, 127]);

function stepResult(c: ObservedCheck | undefined): StepResult | null {
  if (!c) return null;
  return {
    passed: c.counts?.passed ?? null,
    failed: c.counts?.failed ?? null,
    failures: c.counts?.failures ?? [],
    exit: c.exit?.code ?? null,
    state: c.state,
  };
}

/** Why a step gave no usable result, or null when it ran to its end. */
export function checkError(c: ObservedCheck, timeout: number): string | null {
  if (c.state === 'timed-out') return `the check was killed at verify_timeout (${timeout}s)`;
  if (c.state === 'lost') return 'the check process was lost twice (killed, or the machine went down)';
  if (c.state !== 'exited' || !c.exit) return 'the check has not finished';
  if (CANNOT_RUN.has(c.exit.code)) return `the command could not run (exit ${c.exit.code})`;
  return null;
}

function newFailuresOf(base: TestCounts | null, final: TestCounts): { names: string[]; count: number } {
  const before = new Set(base?.failures ?? []);
  const names = final.failures.filter((n) => !before.has(n));
  // Counts without names: the failures past the baseline's number.
  const byCount = Math.max(0, final.failed - (base?.failed ?? 0));
  const count = final.failures.length > 0 || final.failed === 0 ? names.length : byCount;
  return { names, count };
}

export function verifyResult(
  verify: VerifySpec | undefined,
  checks: ObservedChecks,
  output: string | null,
): VerifyResult {
  if (!verify)
    return {
      command: null,
      verdict: 'none',
      baseline: null,
      final: null,
      newFailures: [],
      newFailureCount: 0,
      output: null,
    };
  const last = checks.recheck ?? checks.final;
  const base = checks.baseline;
  const result: VerifyResult = {
    command: verify.command,
    verdict: 'error',
    baseline: stepResult(base),
    final: stepResult(last),
    newFailures: [],
    newFailureCount: 0,
    output: last ? output : null,
  };
  if (!last) return { ...result, error: 'the final check never ran' };
  const error = checkError(last, verify.timeout);
  if (error) return { ...result, error };
  const baseCounts = base && !checkError(base, verify.timeout) ? base.counts : null;
  if (last.counts) {
    const fresh = newFailuresOf(baseCounts, last.counts);
    // Failures that were there before the night fail the command too; nothing else may.
    const ok = fresh.count === 0 && (last.exit?.code === 0 || last.counts.failed > 0);
    return {
      ...result,
      verdict: ok ? 'verified' : 'not-verified',
      newFailures: fresh.names,
      newFailureCount: fresh.count,
    };
  }
  // An unknown format: the exit code alone.
  const passes = last.exit?.code === 0;
  return { ...result, verdict: passes ? 'verified' : 'not-verified', newFailureCount: passes ? 0 : 1 };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** ` (3 failures were there before the night)`, or nothing. */
function beforeNight(v: VerifyResult): string {
  const n = v.baseline?.failed ?? 0;
  return n > 0 ? ` (${plural(n, 'failure')} ${n === 1 ? 'was' : 'were'} there before the night)` : '';
}

/** `verified: 212 passed, 0 new failures` / `NOT verified: 2 new failures` / `check error: …`. */
export function verdictLine(v: VerifyResult): string {
  if (v.verdict === 'none') return '';
  if (v.verdict === 'error') return `check error: ${v.error ?? 'no result'}`;
  const base = beforeNight(v);
  if (v.verdict === 'verified') {
    const passed =
      v.final?.passed !== null && v.final?.passed !== undefined ? `${v.final.passed} passed, ` : '';
    return `verified: ${passed}${v.newFailureCount} new failures${base}`;
  }
  const names = v.newFailures.length > 0 ? `: ${v.newFailures.slice(0, 5).join(', ')}` : '';
  const what = !v.final?.failed ? ` (exit ${v.final?.exit ?? '?'})` : '';
  return `NOT verified: ${plural(v.newFailureCount, 'new failure')}${what}${names}${base}`;
}

/** What the synthesis prompt says of the check, so the report cannot claim otherwise. */
export function synthesisNote(v: VerifyResult): string {
  if (v.verdict === 'none') return '';
  const cmd = `\`${v.command}\``;
  if (v.verdict === 'verified')
    return `\nThe check ${cmd}, which overnight ran itself at the end, passes (${verdictLine(v)}).\n`;
  if (v.verdict === 'error')
    return (
      `\nThe check ${cmd}, which overnight ran itself at the end, gave no result: ${v.error}. ` +
      'Say so in the report; do not claim the work is verified.\n'
    );
  const names = v.newFailures.length > 0 ? `: ${v.newFailures.slice(0, 20).join(', ')}` : '';
  const base = beforeNight(v);
  return (
    `\nThe check ${cmd}, which overnight ran itself at the end, shows ` +
    `${plural(v.newFailureCount, 'new failure')}${names}${base}. ` +
    'Say so in the report; do not claim success.\n'
  );
}
