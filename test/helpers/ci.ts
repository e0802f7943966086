// A test that needs something this machine may lack (root, a tmpfs mount, a cron daemon) is
// skipped on a developer's machine, but never on CI: `.ci/run` exports CI=true and provides all
// of it, so there the test runs, and a missing need fails it instead of passing as "skipped".

export const ON_CI = process.env.CI === 'true';

/** Whether a test whose need is `met` runs: always on CI, else only when it is met. */
export function runsHere(met: boolean): boolean {
  return met || ON_CI;
}
