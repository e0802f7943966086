// The check a run is verified by (`launch --verify`), and what a pass sees of each of its steps.

/** run.yaml's `verify`: the person's command, from launch or the config, never from the agent. */
export interface VerifySpec {
  command: string;
  /** Seconds the check may run before its whole process group is killed. */
  timeout: number;
  /** Seconds after the end time for one fix session when the final check fails (0: none). */
  budget: number;
  /** Where the command writes a JUnit XML file, relative to its working directory (verify_junit). */
  junit?: string;
  /** The person let the check run unconfined (`verify_unconfined`), where no sandbox can hold it. */
  unconfined?: boolean;
}

/** `baseline` on the base commit before the first session, `final` at the end, `recheck` after a fix. */
export const CHECK_STEPS = ['baseline', 'final', 'recheck', 'review'] as const;
export type CheckStep = (typeof CHECK_STEPS)[number];

/** What became of one test in one run of the check. A test marked todo counts as skipped. */
export type Outcome = 'passed' | 'failed' | 'skipped';

/** How many tests of one name passed, failed and were skipped (names repeat across files). */
export type OutcomeCounts = [passed: number, failed: number, skipped: number];

/** What a test runner's output says, parsed: counts, every test by name, the failing names. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** Names of the failing tests, when the format gives them (bounded). */
  failures: string[];
  /**
   * Every test by name and what became of it, when the output names them all (node's TAP and spec
   * reporters, verbose vitest, jest and pytest, go -v, cargo, JUnit); null when it names only the
   * failures, or more tests than are kept.
   */
  tests: Record<string, OutcomeCounts> | null;
  /** Which format was recognized (`node-tap`, `vitest`, `pytest`, …). */
  format: string;
}

/** The record a pass writes before it starts a check step: `check-<step>.json`. */
export interface CheckRecord {
  step: CheckStep;
  startedAt: Date;
  /** 1 for the first start, 2 when it was started again after its process was lost. */
  tries: number;
  /** The commit the step runs on: what overnight committed of the night (final and recheck). */
  commit?: string;
  /** The branch holds nothing of the night's: its head is still the base. */
  unchanged?: boolean;
  /** Test files and runner configuration the night changed (against the base). */
  changedTests?: string[];
  /** Why the night's work could not be committed for the step (it ran on the worktree as it was). */
  undelivered?: string;
}

/**
 * One check step as a pass sees it. `starting`: recorded, its wrapper not yet (within seconds of
 * its start); `lost`: neither running nor an exit record (killed, or the machine went down).
 */
export type CheckState = 'starting' | 'running' | 'exited' | 'timed-out' | 'lost';

export interface ObservedCheck extends CheckRecord {
  state: CheckState;
  exit: { code: number; at: Date } | null;
  /** Parsed from the output's tail once the step has ended; null for an unknown format. */
  counts: TestCounts | null;
  /** The output's last lines (for messages), once ended. */
  tail: string;
}

export type ObservedChecks = Partial<Record<CheckStep, ObservedCheck>>;
