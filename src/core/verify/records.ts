import { sessionNumber, timeOf } from '../run/bounds.js';
import { CHECK_STEPS, type CheckRecord, type CheckState, type CheckStep } from './types.js';

// The check's records in overnight's records directory, one set per step: what a pass wrote before
// it started the step (`check-<step>.json`), what the wrapper wrote (`.pid`, `.exit`, `.log`),
// the mark of a step killed at verify_timeout (`.timeout`), and the copy of the JUnit file the
// command wrote (`.junit`, with verify_junit). Parsed as untrusted, like every record.

export function checkFile(
  state: string,
  step: CheckStep,
  ext: 'json' | 'pid' | 'exit' | 'log' | 'timeout' | 'group' | 'watchdog' | 'junit' | 'end',
) {
  return `${state}/check-${step}.${ext}`;
}

/** Output kept of a check: its last 8 MB. */
export const CHECK_LOG_MAX = 8 * 1024 * 1024;

export function serializeCheck(r: CheckRecord): string {
  return JSON.stringify({ step: r.step, startedAt: r.startedAt.toISOString(), tries: r.tries }) + '\n';
}

export function parseCheck(text: string): CheckRecord | null {
  try {
    const v = JSON.parse(text) as { step?: unknown; startedAt?: unknown; tries?: unknown };
    const startedAt = timeOf(v.startedAt);
    const tries = sessionNumber(v.tries);
    if (!CHECK_STEPS.includes(v.step as CheckStep) || !startedAt || tries === null || tries > 9) return null;
    return { step: v.step as CheckStep, startedAt, tries };
  } catch {
    return null;
  }
}

/** The wrapper writes `<status> <epoch seconds>`. */
export function parseCheckExit(text: string): { code: number; at: Date } | null {
  const m = /^(\d{1,5}) (\d{1,12})$/.exec(text.trim());
  if (!m) return null;
  const at = new Date(Number(m[2]) * 1000);
  return at.getFullYear() > 2000 && at.getFullYear() < 3000 ? { code: Number(m[1]), at } : null;
}

/** How long after its start a check's wrapper may still be on its way to its pid record. */
export const CHECK_START_MS = 10_000;

/** SIGKILL from outside (not overnight's timeout): the check was killed, not judged. */
const KILLED = 128 + 9;

/** The step's state from what its records and the process table say. */
export function checkState(
  r: CheckRecord,
  facts: { alive: boolean; pidRecorded: boolean; exit: number | null; timedOut: boolean },
  now: Date,
): CheckState {
  if (facts.timedOut && !facts.alive) return 'timed-out';
  if (facts.alive) return 'running';
  if (facts.exit !== null && facts.exit !== KILLED) return 'exited';
  if (facts.exit === null && !facts.pidRecorded && now.getTime() - r.startedAt.getTime() < CHECK_START_MS)
    return 'starting';
  return 'lost';
}
