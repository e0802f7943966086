import { countOf, counts, Names, withoutDuration } from './lines.js';
import type { TestCounts } from './types.js';

// vitest (`Tests  1 failed | 2 passed (3)`, ` FAIL  file > suite > name`) and jest
// (`Tests:       1 failed, 2 passed, 3 total`, `● suite › name`).

export function parseVitest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  const names = new Names();
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('Tests  ') && line.endsWith(')')) {
      found = true;
      passed = countOf(line, 'passed');
      failed = countOf(line, 'failed');
      continue;
    }
    const mark = line.startsWith('FAIL ') ? 5 : line.startsWith('× ') ? 2 : 0;
    if (mark > 0 && line.includes(' > ')) names.add(withoutDuration(line.slice(mark)));
  }
  return found ? counts('vitest', passed, failed, names) : null;
}

export function parseJest(lines: string[]): TestCounts | null {
  let found = false;
  let passed = 0;
  let failed = 0;
  const names = new Names();
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('Tests:') && line.endsWith(' total')) {
      found = true;
      passed = countOf(line, 'passed');
      failed = countOf(line, 'failed');
      continue;
    }
    if (line.startsWith('● ') && line.includes(' › ')) names.add(line.slice(2));
  }
  return found ? counts('jest', passed, failed, names) : null;
}
