import type { Reporter, TestModule } from 'vitest/node';

// CI runs every test: under CI=true a test that skipped there (a need the machine lacks, a skip
// left in by mistake) fails the run, named with its file. Part of `npm test` itself.
export default class NoSkips implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: string[] = [];
    for (const m of modules)
      for (const t of m.children.allTests())
        if (t.result().state === 'skipped') skipped.push(`${m.moduleId}: ${t.fullName}`);
    if (skipped.length === 0) return;
    console.error(`\n${skipped.length} test(s) did not run on CI, which should run them all:`);
    for (const s of skipped) console.error(`  ${s}`);
    process.exitCode = 1;
  }
}
