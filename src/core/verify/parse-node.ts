import { counts, Names, num, withoutDuration } from './lines.js';
import type { TestCounts } from './types.js';

// node --test: the TAP reporter (`# pass 3`, `not ok 2 - name`) and the spec reporter
// (`ℹ pass 3`, `✖ name (1.2ms)`).

export function parseNodeTest(lines: string[]): TestCounts | null {
  let passed: number | null = null;
  let failed: number | null = null;
  let tap = false;
  const names = new Names();
  for (const line of lines) {
    const summary = /^(?:# |ℹ )(pass|fail) (\d{1,9})$/.exec(line);
    if (summary) {
      if (summary[1] === 'pass') passed = num(summary[2]);
      else failed = num(summary[2]);
      tap ||= line.startsWith('#');
      continue;
    }
    // TAP: `not ok 2 - name # comment` (subtests indented); a `# TODO`/`# SKIP` is not a failure.
    const notOk = /^\s*not ok \d{1,9} - (.*)$/.exec(line);
    if (notOk && !/# (?:TODO|SKIP)\b/i.test(notOk[1] as string)) {
      names.add((notOk[1] as string).replace(/ # .*$/, ''));
      continue;
    }
    const cross = line.trimStart();
    if (cross.startsWith('✖ ')) {
      const name = withoutDuration(cross.slice(2));
      if (!/^failing tests:?$/.test(name)) names.add(name);
    }
  }
  if (passed === null || failed === null) return null;
  return counts(tap ? 'node-tap' : 'node-spec', passed, failed, names);
}
