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
export const CHECK_STEPS = ['baseline', 'final', 'recheck'] as const;
export type CheckStep = (typeof CHECK_STEPS)[number];

/** What a test runner's output says, parsed: counts and the names of the failing tests. */
export interface TestCounts {
  passed: number;
  failed: number;
  /** Names of the failing tests, when the format gives them (bounded). */
  failures: string[];
  /** Which format was recognized (`node-tap`, `vitest`, `pytest`, …). */
  format: string;
}

/** The record a pass writes before it starts a check step: `check-<step>.json`. */
export interface CheckRecord {
  step: CheckStep;
  startedAt: Date;
  /** 1 for the first start, 2 when it was started again after its process was lost. */
  tries: number;
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
