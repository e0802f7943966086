import { countOf, counts, Names, num } from './lines.js';
import type { TestCounts } from './types.js';

// pytest, go test and cargo test summaries.

/** `=== 1 failed, 2 passed in 0.12s ===`; `FAILED tests/test_a.py::test_b - AssertionError`. */
export function parsePytest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  const names = new Names();
  for (const line of lines) {
    const summary = pytestSummary(line);
    if (summary) {
      found = true;
      passed = countOf(summary, 'passed');
      failed = countOf(summary, 'failed') + (countOf(summary, 'errors') || countOf(summary, 'error'));
      continue;
    }
    const f = /^(?:FAILED|ERROR) (\S+)/.exec(line);
    if (f) names.add(f[1] as string);
  }
  return found ? counts('pytest', passed, failed, names) : null;
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
  return /\b(?:passed|failed|errors?)\b/.test(s) ? ' ' + s : null;
}

/** `--- FAIL: TestName (0.00s)` and `--- PASS: …` (with -v); `ok`/`FAIL` package lines. */
export function parseGoTest(lines: string[]): TestCounts | null {
  let packages = 0;
  let passed = 0;
  const names = new Names();
  let failed = 0;
  for (const line of lines) {
    const t = /^\s*--- (PASS|FAIL): (\S+)/.exec(line);
    if (t) {
      if (t[1] === 'PASS') passed++;
      else {
        failed++;
        names.add(t[2] as string);
      }
      continue;
    }
    if (/^(?:ok|FAIL|\?)\s+\S+(?:\s|$)/.test(line)) packages++;
  }
  return packages > 0 ? counts('go', passed, failed, names) : null;
}

/** `test result: FAILED. 2 passed; 1 failed; …` (one per test binary); `test a::b ... FAILED`. */
export function parseCargoTest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  const names = new Names();
  for (const line of lines) {
    const r = /^test result: \w+\. (\d{1,9}) passed; (\d{1,9}) failed;/.exec(line);
    if (r) {
      found = true;
      passed += num(r[1]);
      failed += num(r[2]);
      continue;
    }
    const t = /^test (\S+) \.\.\. FAILED$/.exec(line);
    if (t) names.add(t[1] as string);
  }
  return found ? counts('cargo', passed, failed, names) : null;
}
