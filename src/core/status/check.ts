import type { Review } from '../review/types.js';
import { findingLines, reviewLine } from '../review/words.js';
import { isLive } from '../supervise/live-states.js';
import { oneLine } from '../text.js';
import { changedTestsLine, lostTests, verdictLine } from '../verify/verdict-text.js';
import type { VerifyResult } from '../verify/verdict.js';

// `overnight status <run>`: the run's check (`launch --verify`), for a person: the verdict, the
// failing tests' names (the night's new failures first, a bounded list) and where the output is.
// Pure; the names come from the check's output and are made safe by the caller (safeLine).

/** Failing names listed at most; the rest are counted. */
export const SHOWN_FAILURES = 10;

export function checkDetails(v: VerifyResult | undefined, state: string): string[] {
  if (!v || v.verdict === 'none') return [];
  const lines = [`check:      ${checkHeadline(v, state)}`, `  command:  ${v.command ?? '?'}`];
  if (pending(v, state)) return lines;
  if (v.commit) lines.push(`  on:       ${v.commit.slice(0, 12)} (overnight's commit of the night)`);
  // The tests to look at first: changed by the night, or no longer passing.
  const changed = changedTestsLine(v, SHOWN_FAILURES);
  if (changed) lines.push(`  tests:    ${oneLine(changed, 300)}`);
  for (const lost of lostTests(v.accounting, SHOWN_FAILURES)) lines.push(`  lost:     ${oneLine(lost, 300)}`);
  const failing = failingNames(v);
  const shown = failing.slice(0, SHOWN_FAILURES);
  shown.forEach((name, i) => lines.push(`${i === 0 ? '  failing:  ' : '            '}${name}`));
  if (failing.length > shown.length) lines.push(`            … and ${failing.length - shown.length} more`);
  if (v.output) lines.push(`  output:   ${v.output}`);
  return lines;
}

/** A live run's check still to come, or running: no verdict yet (not an error). */
function pending(v: VerifyResult, state: string): boolean {
  return state === 'verifying' || (isLive(state) && v.final === null);
}

function checkHeadline(v: VerifyResult, state: string): string {
  if (state === 'verifying') return 'running now';
  if (pending(v, state)) return 'runs at the end time, before the report';
  return oneLine(verdictLine(v), 300);
}

/** The final check's failing names: the night's new ones first, then those from before it. */
function failingNames(v: VerifyResult): string[] {
  const fresh = new Set(v.newFailures);
  const before = (v.final?.failures ?? []).filter((n) => !fresh.has(n));
  return [
    ...v.newFailures.map((n) => `${oneLine(n, 200)} (new)`),
    ...before.map((n) => `${oneLine(n, 200)} (there before the night)`),
  ];
}

/** `status <run>`: the reviewer's verdict, its summary and findings (the review is untrusted text). */
export function reviewDetails(r: Review | undefined): string[] {
  if (!r) return [];
  const lines = [`review:     ${oneLine(reviewLine(r, 300), 400)}`];
  for (const f of findingLines(r, SHOWN_FAILURES)) lines.push(`  ${oneLine(f, 300)}`);
  return lines;
}
