import { describe, expect, test } from 'vitest';

import { parseTestOutput } from '../../src/core/verify/parse.js';

// The check's output parsers: one table row per format, and their bounds.

const NODE_TAP = `TAP version 13
# Subtest: adds
ok 1 - adds
  ---
  duration_ms: 0.5
  ...
# Subtest: breaks
not ok 2 - breaks
  ---
  error: 'Expected values to be strictly equal'
  ...
not ok 3 - skipped one # SKIP
1..3
# tests 3
# suites 0
# pass 1
# fail 1
# cancelled 0`;

const NODE_SPEC = `✔ adds (0.6ms)
✖ breaks (1.2ms)
ℹ tests 2
ℹ pass 1
ℹ fail 1
✖ failing tests:

test at a.test.mjs:3:1
✖ breaks (1.2ms)
  AssertionError`;

const VITEST = ` ❯ test/a.test.ts (3 tests | 1 failed) 5ms
   × a > breaks 2ms
 FAIL  test/a.test.ts > a > breaks
AssertionError: expected 1 to be 2

 Test Files  1 failed (1)
      Tests  1 failed | 2 passed (3)`;

const JEST = `  ● math › breaks

    expect(received).toBe(expected)

Tests:       1 failed, 4 passed, 5 total`;

const PYTEST = `FAILED tests/test_a.py::test_b - AssertionError: 1 != 2
ERROR tests/test_c.py::test_d
==== 1 failed, 7 passed, 1 error in 0.12s ====`;

const GO = `=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestBreak
--- FAIL: TestBreak (0.00s)
FAIL
FAIL	example.com/m	0.002s`;

const CARGO = `test tests::adds ... ok
test tests::breaks ... FAILED

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s`;

const JUNIT = `<?xml version="1.0"?>
<testsuite name="s" tests="3" failures="1">
  <testcase classname="math" name="adds" />
  <testcase classname="math" name="a &amp; b"><failure message="x">boom</failure></testcase>
  <testcase classname="math" name="later"><skipped/></testcase>
</testsuite>`;

describe('parseTestOutput', () => {
  test.each([
    [
      'node TAP',
      NODE_TAP,
      {
        format: 'node-tap',
        passed: 1,
        failed: 1,
        skipped: 0,
        failures: ['breaks'],
        tests: { adds: [1, 0, 0], breaks: [0, 1, 0], 'skipped one': [0, 0, 1] },
      },
    ],
    [
      'node spec',
      NODE_SPEC,
      {
        format: 'node-spec',
        passed: 1,
        failed: 1,
        skipped: 0,
        failures: ['breaks'],
        tests: { adds: [1, 0, 0], breaks: [0, 1, 0] },
      },
    ],
    [
      'vitest',
      VITEST,
      {
        format: 'vitest',
        passed: 2,
        failed: 1,
        skipped: 0,
        failures: ['a > breaks', 'test/a.test.ts > a > breaks'],
        // The default reporter names only the failures: counted, not accounted for by name.
        tests: null,
      },
    ],
    [
      'jest',
      JEST,
      { format: 'jest', passed: 4, failed: 1, skipped: 0, failures: ['math › breaks'], tests: null },
    ],
    [
      'pytest',
      PYTEST,
      {
        format: 'pytest',
        passed: 7,
        failed: 2,
        skipped: 0,
        failures: ['tests/test_a.py::test_b', 'tests/test_c.py::test_d'],
        tests: null,
      },
    ],
    [
      'go test',
      GO,
      {
        format: 'go',
        passed: 1,
        failed: 1,
        skipped: 0,
        failures: ['TestBreak'],
        tests: { TestAdd: [1, 0, 0], TestBreak: [0, 1, 0] },
      },
    ],
    [
      'cargo test',
      CARGO,
      {
        format: 'cargo',
        passed: 1,
        failed: 1,
        skipped: 0,
        failures: ['tests::breaks'],
        tests: { 'tests::adds': [1, 0, 0], 'tests::breaks': [0, 1, 0] },
      },
    ],
    [
      'JUnit XML',
      JUNIT,
      {
        format: 'junit',
        passed: 1,
        failed: 1,
        skipped: 1,
        failures: ['math a & b'],
        tests: { 'math adds': [1, 0, 0], 'math a & b': [0, 1, 0], 'math later': [0, 0, 1] },
      },
    ],
  ])('%s', (_what, output, want) => {
    expect(parseTestOutput(output)).toEqual(want);
  });

  test('colour codes are ignored', () => {
    expect(parseTestOutput('\u001b[32m# pass 2\u001b[0m\n# fail 0\n')).toMatchObject({
      passed: 2,
      failed: 0,
    });
  });

  test('an unknown format is null: the exit code decides', () => {
    expect(parseTestOutput('all good\n')).toBeNull();
    expect(parseTestOutput('')).toBeNull();
  });

  test('hostile output stays fast and bounded', () => {
    const long = '✖ ' + ' ('.repeat(200_000) + '\n' + '='.repeat(300_000) + ' in \n';
    const many = Array.from({ length: 5000 }, (_, i) => `not ok ${i} - t${i}`).join('\n');
    const started = Date.now();
    const r = parseTestOutput(`${long}\n${many}\n# pass 0\n# fail 5000\n`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r?.failed).toBe(5000);
    expect(r?.failures.length).toBe(200);
    expect(Math.max(...(r?.failures ?? []).map((n) => n.length))).toBeLessThanOrEqual(200);
  });
});
