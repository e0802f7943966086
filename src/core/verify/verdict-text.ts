import type { Accounting } from './accounting.js';
import type { VerifyResult } from './verdict.js';

// The verdict in words, as status, the digest, the notification, DONE and the synthesis say it:
// what became of every baseline test, named. Pure.

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** ` (3 failures were there before the night)`, or nothing. */
function beforeNight(v: VerifyResult): string {
  const n = v.baseline?.failed ?? 0;
  return n > 0 ? ` (${plural(n, 'failure')} ${n === 1 ? 'was' : 'were'} there before the night)` : '';
}

/** `names` or `n` when the output gave no names: `skipped: two is two, …`. */
function kind(label: string, names: string[], count: number, shown = 5): string | null {
  if (count === 0) return null;
  if (names.length === 0) return `${label}: ${count}`;
  const more =
    count > Math.min(names.length, shown) ? `, and ${count - Math.min(names.length, shown)} more` : '';
  return `${label}: ${names.slice(0, shown).join(', ')}${more}`;
}

/** What became of the baseline's tests that no longer pass, each kind named. */
export function lostTests(a: Accounting | null, shown = 5): string[] {
  if (!a) return [];
  const out = [
    kind('skipped', a.skipped, a.skippedCount, shown),
    kind('gone', a.gone, a.goneCount, shown),
    kind('removed, not fixed', a.removed, a.removedCount, shown),
  ].filter((x) => x !== null);
  if (a.basis === 'counts' && a.passedNow < a.passedBefore)
    out.push(`passed ${a.passedBefore}, now ${a.passedNow}`);
  return out;
}

/**
 * `verified: 212 passed, 0 new failures` / `verified by exit code alone` / `unchanged: …` /
 * `NOT verified: 1 new failure: subtracts; skipped: two is two` / `check error: …`.
 */
export function verdictLine(v: VerifyResult): string {
  if (v.verdict === 'none') return '';
  if (v.verdict === 'error') return `check error: ${v.error ?? 'no result'}`;
  if (v.verdict === 'unchanged') return 'unchanged: the night left nothing on the branch to check';
  const base = beforeNight(v);
  if (v.verdict === 'verified') {
    if (v.basis === 'exit-code')
      return 'verified by exit code alone (exit 0; the output names no tests overnight reads)';
    const passed =
      v.final?.passed !== null && v.final?.passed !== undefined ? `${v.final.passed} passed, ` : '';
    return `verified: ${passed}${v.newFailureCount} new failures${base}`;
  }
  const parts: string[] = [];
  if (v.newFailureCount > 0 || lostTests(v.accounting).length === 0) {
    const names = v.newFailures.length > 0 ? `: ${v.newFailures.slice(0, 5).join(', ')}` : '';
    const what = v.error ? ` (${v.error})` : !v.final?.failed ? ` (exit ${v.final?.exit ?? '?'})` : '';
    parts.push(`${plural(v.newFailureCount, 'new failure')}${what}${names}`);
  }
  parts.push(...lostTests(v.accounting));
  return `NOT verified: ${parts.join('; ')}${base}`;
}

/** `the night changed its tests: test/a.test.mjs, package.json (scripts)`, or null. */
export function changedTestsLine(v: VerifyResult, shown = 10): string | null {
  const n = v.changedTests.length;
  if (n === 0) return null;
  const more = n > shown ? `, and ${n - shown} more` : '';
  return `the night changed its tests: ${v.changedTests.slice(0, shown).join(', ')}${more}`;
}

/** What the synthesis prompt says of the check, so the report cannot claim otherwise. */
export function synthesisNote(v: VerifyResult): string {
  if (v.verdict === 'none') return '';
  const cmd = `\`${v.command}\``;
  const changed = changedTestsLine(v);
  const tests = changed
    ? ` Say plainly in the report that ${changed.replace(/^the night/, 'the night')}.`
    : '';
  if (v.verdict === 'verified')
    return `\nThe check ${cmd}, which overnight ran itself at the end, passes (${verdictLine(v)}).${tests}\n`;
  if (v.verdict === 'unchanged')
    return (
      "\nThe night left nothing on the branch: overnight's check has nothing to verify. " +
      'Say so in the report.\n'
    );
  if (v.verdict === 'error')
    return (
      `\nThe check ${cmd}, which overnight ran itself at the end, gave no result: ${v.error}. ` +
      'Say so in the report; do not claim the work is verified.\n'
    );
  return (
    `\nThe check ${cmd}, which overnight ran itself at the end, says: ${verdictLine(v)}.${tests} ` +
    'Say so in the report; do not claim success.\n'
  );
}
