import { account, accountedFor, type Accounting } from './accounting.js';
import type { ObservedCheck, ObservedChecks, TestCounts, VerifySpec } from './types.js';

// The verdict: overnight's, from exit codes and every test of the baseline accounted for, never
// from the agent's words. `verified` means what was tested before is still tested and still
// passes, on the commit the person is handed.

export type Verdict = 'verified' | 'not-verified' | 'unchanged' | 'error' | 'none';

export const VERDICTS: readonly Verdict[] = ['verified', 'not-verified', 'unchanged', 'error', 'none'];

/**
 * How the verdict was reached: test by test, by the counts alone, or by the exit code alone (the
 * output named no tests overnight can read): only the first two earn a ✓.
 */
export type Basis = 'tests' | 'counts' | 'exit-code';

/** A step's counts as result.json carries them. */
export interface StepResult {
  passed: number | null;
  failed: number | null;
  skipped: number | null;
  failures: string[];
  exit: number | null;
  state: string;
}

/** result.json's and `status --json`'s `verify`. */
export interface VerifyResult {
  command: string | null;
  verdict: Verdict;
  basis: Basis | null;
  baseline: StepResult | null;
  final: StepResult | null;
  newFailures: string[];
  /** How many new failures when the format gives counts but no names. */
  newFailureCount: number;
  /** Every baseline test accounted for: what became of each (null without counts). */
  accounting: Accounting | null;
  /** The commit the final check ran on (a repository run's), once overnight committed the night. */
  commit: string | null;
  /** Test files and test runner configuration the night changed: to be looked at first. */
  changedTests: string[];
  /** The final check's output file (in overnight's records). */
  output: string | null;
  /** Why the verdict is `error` (or `not-verified` without counts), in a line. */
  error?: string;
}

/** Exit statuses that say the command never ran: not found, not executable. */
const CANNOT_RUN = new Set([126, 127]);

function stepResult(c: ObservedCheck | undefined): StepResult | null {
  if (!c) return null;
  return {
    passed: c.counts?.passed ?? null,
    failed: c.counts?.failed ?? null,
    skipped: c.counts?.skipped ?? null,
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

const NONE: VerifyResult = {
  command: null,
  verdict: 'none',
  basis: null,
  baseline: null,
  final: null,
  newFailures: [],
  newFailureCount: 0,
  accounting: null,
  commit: null,
  changedTests: [],
  output: null,
};

export function verifyResult(
  verify: VerifySpec | undefined,
  checks: ObservedChecks,
  output: string | null,
): VerifyResult {
  if (!verify) return NONE;
  const last = checks.recheck ?? checks.final;
  const base = checks.baseline;
  const result: VerifyResult = {
    ...NONE,
    command: verify.command,
    verdict: 'error',
    baseline: stepResult(base),
    final: stepResult(last),
    commit: last?.commit ?? null,
    changedTests: last?.changedTests ?? [],
    output: last ? output : null,
  };
  if (!last) return { ...result, error: 'the final check never ran' };
  // Nothing delivered: not a success, whatever the check says of the base commit.
  if (last.unchanged) return { ...result, verdict: 'unchanged' };
  if (last.undelivered)
    return { ...result, error: `the night's work could not be committed for the check: ${last.undelivered}` };
  const error = checkError(last, verify.timeout);
  if (error) return { ...result, error };
  const baseCounts = base && !checkError(base, verify.timeout) ? base.counts : null;
  const exit = last.exit?.code ?? null;
  if (last.counts) {
    const a = account(baseCounts, last.counts);
    // Failures that were there before the night fail the command too; nothing else may.
    const exitOk = exit === 0 || (last.counts.failed > 0 && a.newFailureCount === 0);
    return {
      ...result,
      verdict: accountedFor(a) && exitOk ? 'verified' : 'not-verified',
      basis: a.basis,
      accounting: a,
      newFailures: a.newFailures,
      newFailureCount: a.newFailureCount,
    };
  }
  // The baseline's tests could be read and the final's cannot: none of them is accounted for.
  if (baseCounts)
    return {
      ...result,
      verdict: 'not-verified',
      basis: 'counts',
      error: `its output names no tests overnight can read, though the baseline's named ${total(baseCounts)}`,
    };
  // An unknown format: the exit code alone.
  const passes = exit === 0;
  return {
    ...result,
    verdict: passes ? 'verified' : 'not-verified',
    basis: 'exit-code',
    newFailureCount: passes ? 0 : 1,
  };
}

const total = (c: TestCounts) => c.passed + c.failed + c.skipped;

/** Whether the verdict earns the ✓ of a counted check. */
export const counted = (v: VerifyResult): boolean => v.verdict === 'verified' && v.basis !== 'exit-code';
