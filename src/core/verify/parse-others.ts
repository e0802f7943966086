import { countOf, counts, Names, num, Outcomes } from './lines.js';
import type { Outcome, TestCounts } from './types.js';

// pytest, go test and cargo test. Tests are kept by name where the output names them all: pytest
// with -v (`tests/a.py::test_b PASSED [ 50%]`), go test -v (`--- PASS: TestA (0.00s)`), cargo.

const PYTEST: Record<string, Outcome> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'failed',
  SKIPPED: 'skipped',
  XFAIL: 'skipped',
  XPASS: 'passed',
};

/** `=== 1 failed, 2 passed in 0.12s ===`; `FAILED tests/test_a.py::test_b - AssertionError`. */
export function parsePytest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names = new Names();
  const tests = new Outcomes();
  for (const line of lines) {
    const summary = pytestSummary(line);
    if (summary) {
      found = true;
      passed = countOf(summary, 'passed') + countOf(summary, 'xpassed');
      failed = countOf(summary, 'failed') + (countOf(summary, 'errors') || countOf(summary, 'error'));
      skipped = countOf(summary, 'skipped') + countOf(summary, 'xfailed');
      continue;
    }
    const f = /^(?:FAILED|ERROR) (\S+)/.exec(line);
    if (f) names.add(f[1] as string);
    const v = /^(\S+::\S.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: |$)/.exec(line);
    if (v) tests.add(v[1] as string, PYTEST[v[2] as string] as Outcome);
  }
  if (!found) return null;
  const whole = tests.size > 0 && tests.size === passed + failed + skipped;
  return counts('pytest', passed, failed, names, skipped, whole ? tests : null);
}

/** `1 failed, 2 passed` out of `=== 1 failed, 2 passed in 0.12s ===`, else null. */
function pytestSummary(line: string): string | null {
  if (!line.startsWith('=') || !line.endsWith('=')) return null;
  let from = 0;
  while (from < line.length && line[from] === '=') from++;
  let to = line.length;
  while (to > from && line[to - 1] === '=') to--;
  const inner = line.slice(from, to).trim();
  const at = inner.lastIndexOf(' in ');
  if (at < 0 || !/^[\d.]{1,12}s\b/.test(inner.slice(at + 4))) return null;
  const s = inner.slice(0, at);
  return /\b(?:passed|failed|errors?|skipped)\b/.test(s) ? ' ' + s : null;
}

/** `--- FAIL: TestName (0.00s)`, `--- PASS: …`, `--- SKIP: …` (with -v); `ok`/`FAIL` package lines. */
export function parseGoTest(lines: string[]): TestCounts | null {
  let packages = 0;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names = new Names();
  const tests = new Outcomes();
  for (const line of lines) {
    const t = /^\s*--- (PASS|FAIL|SKIP): (\S+)/.exec(line);
    if (t) {
      const outcome: Outcome = t[1] === 'PASS' ? 'passed' : t[1] === 'FAIL' ? 'failed' : 'skipped';
      tests.add(t[2] as string, outcome);
      if (outcome === 'passed') passed++;
      else if (outcome === 'skipped') skipped++;
      else {
        failed++;
        names.add(t[2] as string);
      }
      continue;
    }
    if (/^(?:ok|FAIL|\?)\s+\S+(?:\s|$)/.test(line)) packages++;
  }
  // Without -v only failures are named: the passing tests are not there to account for.
  return packages > 0 ? counts('go', passed, failed, names, skipped, passed > 0 ? tests : null) : null;
}

/** `test result: FAILED. 2 passed; 1 failed; 1 ignored; …` (one per binary); `test a::b ... FAILED`. */
export function parseCargoTest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names = new Names();
  const tests = new Outcomes();
  for (const line of lines) {
    const r = /^test result: \w+\. (\d{1,9}) passed; (\d{1,9}) failed; (\d{1,9}) ignored;/.exec(line);
    if (r) {
      found = true;
      passed += num(r[1]);
      failed += num(r[2]);
      skipped += num(r[3]);
      continue;
    }
    const t = /^test (\S+) \.\.\. (ok|FAILED|ignored)/.exec(line);
    if (!t) continue;
    const outcome: Outcome = t[2] === 'ok' ? 'passed' : t[2] === 'FAILED' ? 'failed' : 'skipped';
    tests.add(t[1] as string, outcome);
    if (outcome === 'failed') names.add(t[1] as string);
  }
  if (!found) return null;
  const whole = tests.size > 0 && tests.size === passed + failed + skipped;
  return counts('cargo', passed, failed, names, skipped, whole ? tests : null);
}
