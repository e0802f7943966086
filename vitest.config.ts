import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Integration files each run their own tmux server; two cores, so two at a time.
    maxWorkers: 2,
    // On CI every test runs: one that skipped fails `npm test` (test/helpers/no-skips-reporter.ts).
    reporters: process.env.CI === 'true' ? ['default', './test/helpers/no-skips-reporter.ts'] : ['default'],
  },
});
