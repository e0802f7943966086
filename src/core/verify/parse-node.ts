import { counts, Names, num, Outcomes, withoutDuration } from './lines.js';
import type { Outcome, TestCounts } from './types.js';

// node --test: the TAP reporter (`# pass 3`, `ok 1 - name`, `not ok 2 - name`, nested `# Subtest:`
// blocks four spaces deeper) and the spec reporter (`ℹ pass 3`, `✔ name (1ms)`, `✖ name`,
// `﹣ name # reason` for a skipped one, `▶ suite` opening a group two spaces deeper). Every test is
// named by its path (`suite > name`); a skipped or todo test counts as skipped.

const SEP = ' > ';

/** `ok 2 - name # SKIP why`: the name, and what the directive makes of the outcome. */
function tapOutcome(ok: boolean, rest: string): { name: string; outcome: Outcome } {
  const hash = rest.search(/ # (?:SKIP|TODO)\b/i);
  const name = (hash < 0 ? rest : rest.slice(0, hash)).replace(/\\#/g, '#');
  const directive = hash < 0 ? '' : rest.slice(hash + 3, hash + 7).toUpperCase();
  const outcome: Outcome =
    directive === 'SKIP' || directive === 'TODO' ? 'skipped' : ok ? 'passed' : 'failed';
  return { name, outcome };
}

export function parseNodeTest(lines: string[]): TestCounts | null {
  let passed: number | null = null;
  let failed: number | null = null;
  let skipped = 0;
  let tap = false;
  let summary = false;
  const names = new Names();
  const tests = new Outcomes();
  const path: string[] = [];
  let yaml: string | null = null;
  for (const line of lines) {
    // A TAP diagnostic block (`  ---` … `  ...`) quotes errors: nothing in it is a result.
    if (yaml !== null) {
      if (line === `${yaml}...`) yaml = null;
      continue;
    }
    const total = /^(?:# |ℹ )(pass|fail|skipped|todo) (\d{1,9})$/.exec(line);
    if (total) {
      if (total[1] === 'pass') passed = num(total[2]);
      else if (total[1] === 'fail') failed = num(total[2]);
      else skipped += num(total[2]);
      tap ||= line.startsWith('#');
      summary = true;
      continue;
    }
    if (summary) continue;
    const indent = line.length - line.trimStart().length;
    const body = line.slice(indent);
    const level = Math.floor(
      indent / (body.startsWith('# Subtest: ') || /^(?:not )?ok \d/.test(body) ? 4 : 2),
    );
    if (body === '---') {
      yaml = ' '.repeat(indent);
      continue;
    }
    const sub = /^# Subtest: (.*)$/.exec(body);
    if (sub) {
      path.length = level;
      path[level] = sub[1] as string;
      continue;
    }
    const result = /^(not )?ok \d{1,9} - (.*)$/.exec(body);
    if (result) {
      const { name, outcome } = tapOutcome(!result[1], result[2] as string);
      record([...path.slice(0, level), name].join(SEP), outcome, tests, names);
      continue;
    }
    const spec = /^([✔✖﹣▶]) (.*)$/.exec(body);
    if (!spec) continue;
    const text = spec[2] as string;
    if (spec[1] === '▶') {
      path.length = level;
      path[level] = text;
      continue;
    }
    const hash = text.indexOf(' # ');
    const name = withoutDuration(hash < 0 ? text : text.slice(0, hash));
    const todo = hash >= 0 && /^TODO\b/.test(text.slice(hash + 3));
    const outcome: Outcome = spec[1] === '﹣' || todo ? 'skipped' : spec[1] === '✔' ? 'passed' : 'failed';
    record([...path.slice(0, level), name].join(SEP), outcome, tests, names);
  }
  if (passed === null || failed === null) return null;
  return counts(tap ? 'node-tap' : 'node-spec', passed, failed, names, skipped, tests);
}

function record(name: string, outcome: Outcome, tests: Outcomes, names: Names): void {
  tests.add(name, outcome);
  if (outcome === 'failed') names.add(name);
}
