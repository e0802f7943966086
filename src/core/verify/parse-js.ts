import { countOf, counts, Names, Outcomes, withoutDuration } from './lines.js';
import type { Outcome, TestCounts } from './types.js';

// vitest (`Tests  1 failed | 2 passed | 1 skipped (4)`, ` FAIL  file > suite > name`; with the
// verbose reporter every test as `✓ file > suite > name 2ms`, `×`, `↓` skipped, `□` todo) and jest
// (`Tests:       1 failed, 2 passed, 3 total`, `● suite › name`; with --verbose every test under
// its describe blocks: `✓ name (3 ms)`, `✕`, `○ skipped`, `✎ todo`). Tests are kept by name only
// when the output names as many as its summary counts.

const VITEST_MARKS: Record<string, Outcome> = {
  '✓': 'passed',
  '×': 'failed',
  '↓': 'skipped',
  '□': 'skipped',
};

export function parseVitest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let total = 0;
  const names = new Names();
  const tests = new Outcomes();
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('Tests  ') && line.endsWith(')')) {
      found = true;
      passed = countOf(line, 'passed');
      failed = countOf(line, 'failed');
      skipped = countOf(line, 'skipped') + countOf(line, 'todo');
      total = Number(/\((\d{1,9})\)$/.exec(line)?.[1] ?? 0);
      continue;
    }
    const mark = line.startsWith('FAIL ') ? 5 : line.startsWith('× ') ? 2 : 0;
    if (mark > 0 && line.includes(' > ')) names.add(withoutDuration(line.slice(mark)));
    const outcome = VITEST_MARKS[line.slice(0, 1)];
    if (outcome && line[1] === ' ' && line.includes(' > '))
      tests.add(withoutDuration(line.slice(2)), outcome);
  }
  if (!found) return null;
  return counts('vitest', passed, failed, names, skipped, tests.size === total ? tests : null);
}

const JEST_MARKS: Record<string, Outcome> = {
  '✓': 'passed',
  '√': 'passed',
  '✕': 'failed',
  '×': 'failed',
  '○': 'skipped',
  '✎': 'skipped',
};

export function parseJest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let total = 0;
  const names = new Names();
  const tests = new Outcomes();
  const path: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('Tests:') && line.endsWith(' total')) {
      found = true;
      passed = countOf(line, 'passed');
      failed = countOf(line, 'failed');
      skipped = countOf(line, 'skipped') + countOf(line, 'todo');
      total = countOf(line, 'total');
      continue;
    }
    if (line.startsWith('● ') && line.includes(' › ')) {
      names.add(line.slice(2));
      continue;
    }
    if (/^(PASS|FAIL) /.test(line)) {
      path.length = 0;
      continue;
    }
    const level = Math.max(0, Math.floor((raw.length - raw.trimStart().length) / 2) - 1);
    const outcome = JEST_MARKS[line.slice(0, 1)];
    if (outcome && line[1] === ' ') {
      const name = withoutDuration(line.slice(2).replace(/^(?:skipped|todo) /, ''));
      tests.add([...path.slice(0, level), name].join(' › '), outcome);
    } else if (line !== '' && level < 32 && !/^[●›]/.test(line)) {
      path.length = level;
      path[level] = line;
    }
  }
  if (!found) return null;
  return counts(
    'jest',
    passed,
    failed,
    names,
    skipped,
    tests.size > 0 && tests.size === total ? tests : null,
  );
}
