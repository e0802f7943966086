import type { OutcomeCounts, TestCounts } from './types.js';

// Every test of the baseline accounted for at the end of the night. By name where both runs of
// the check name every test, else by counts. Names repeat (a `works` in two files), so each name
// carries how many passed, failed and were skipped. Pure.

/** Names listed in each kind at most; the counts say the rest. */
export const LISTED = 50;

export interface Accounting {
  /** How the baseline was compared: test by test, or by the counts alone. */
  basis: 'tests' | 'counts';
  /** Tests failing now that did not fail before (new, or broken). */
  newFailures: string[];
  newFailureCount: number;
  /** Passed at the baseline, skipped (or todo) now. */
  skipped: string[];
  skippedCount: number;
  /** Passed at the baseline, gone now (deleted, or renamed). */
  gone: string[];
  goneCount: number;
  /** Failing at the baseline, gone or skipped now: a failure removed, not fixed. */
  removed: string[];
  removedCount: number;
  /** Failing at the baseline, passing now. */
  fixed: string[];
  fixedCount: number;
  /** Tests the baseline did not have. */
  added: number;
  passedBefore: number;
  passedNow: number;
}

const EMPTY: OutcomeCounts = [0, 0, 0];

function push(list: string[], name: string, n: number): number {
  for (let i = 0; i < n && list.length < LISTED; i++) list.push(n > 1 ? `${name} (${i + 1} of ${n})` : name);
  return n;
}

/** The final check against the baseline (null: no baseline, as for a plain run). */
export function account(base: TestCounts | null, final: TestCounts): Accounting {
  const a: Accounting = {
    basis: base?.tests && final.tests ? 'tests' : 'counts',
    newFailures: [],
    newFailureCount: 0,
    skipped: [],
    skippedCount: 0,
    gone: [],
    goneCount: 0,
    removed: [],
    removedCount: 0,
    fixed: [],
    fixedCount: 0,
    added: 0,
    passedBefore: base?.passed ?? 0,
    passedNow: final.passed,
  };
  if (a.basis === 'tests') byName(base?.tests ?? {}, final.tests ?? {}, a);
  else byCount(base, final, a);
  return a;
}

function byName(before: Record<string, OutcomeCounts>, after: Record<string, OutcomeCounts>, a: Accounting) {
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [bp, bf, bs] = before[name] ?? EMPTY;
    const [fp, ff, fs] = after[name] ?? EMPTY;
    if (!before[name]) a.added += fp + ff + fs;
    const failNew = Math.max(0, ff - bf);
    a.newFailureCount += push(a.newFailures, name, failNew);
    // Passes lost beyond those now failing: skipped, else gone.
    const rest = Math.max(0, bp - fp - failNew);
    const skipped = Math.min(rest, Math.max(0, fs - bs));
    a.skippedCount += push(a.skipped, name, skipped);
    a.goneCount += push(a.gone, name, rest - skipped);
    // Failures no longer failing: fixed when passes grew, else removed (skipped or gone).
    const failLost = Math.max(0, bf - ff);
    const fixed = Math.min(failLost, Math.max(0, fp - bp));
    a.fixedCount += push(a.fixed, name, fixed);
    a.removedCount += push(a.removed, name, failLost - fixed);
  }
}

function byCount(base: TestCounts | null, final: TestCounts, a: Accounting) {
  const before = new Set(base?.failures ?? []);
  a.newFailures = final.failures.filter((n) => !before.has(n)).slice(0, LISTED);
  // Names where the format gives them; else the failures past the baseline's number.
  a.newFailureCount =
    final.failures.length > 0 || final.failed === 0
      ? a.newFailures.length
      : Math.max(0, final.failed - (base?.failed ?? 0));
  if (!base) return;
  a.skippedCount = Math.max(0, final.skipped - base.skipped);
  const total = (c: TestCounts) => c.passed + c.failed + c.skipped;
  a.goneCount = Math.max(0, total(base) - total(final));
  a.added = Math.max(0, total(final) - total(base));
}

/** Whether nothing the baseline knew was lost: no new failure, nothing skipped, gone or removed. */
export function accountedFor(a: Accounting): boolean {
  return (
    a.newFailureCount === 0 &&
    a.skippedCount === 0 &&
    a.goneCount === 0 &&
    a.removedCount === 0 &&
    (a.basis === 'tests' || a.passedNow >= a.passedBefore)
  );
}
