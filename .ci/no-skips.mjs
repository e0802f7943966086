// CI runs every test: a test that skipped there (a need the machine lacks, a skip left in by
// mistake) fails the run, named with its file. Reads the JSON report of `vitest run`.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: node .ci/no-skips.mjs <vitest json report>');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const skipped = [];
for (const suite of report.testResults ?? []) {
  for (const t of suite.assertionResults ?? []) {
    if (t.status !== 'passed' && t.status !== 'failed')
      skipped.push(`${relative(process.cwd(), suite.name)}: ${t.fullName} (${t.status})`);
  }
}
if (skipped.length > 0) {
  console.error(`${skipped.length} test(s) did not run on CI, which should run them all:`);
  for (const s of skipped) console.error(`  ${s}`);
  process.exit(1);
}
console.log(`no test skipped (${report.numTotalTests ?? '?'} tests)`);
