import { sessionNumber, timeOf } from '../run/bounds.js';
import { CHECK_STEPS, type CheckRecord, type CheckState, type CheckStep } from './types.js';

// The check's records in overnight's records directory, one set per step: what a pass wrote before
// it started the step (`check-<step>.json`), what the wrapper wrote (`.pid`, `.exit`, `.log`),
// the mark of a step killed at verify_timeout (`.timeout`), and the copy of the JUnit file the
// command wrote (`.junit`, with verify_junit). Parsed as untrusted, like every record.

export function checkFile(
  state: string,
  step: CheckStep,
  ext:
    'json' | 'pid' | 'exit' | 'log' | 'timeout' | 'group' | 'watchdog' | 'junit' | 'end' | 'counts' | 'tests',
) {
  return `${state}/check-${step}.${ext}`;
}

/** Output kept of a check: its last 8 MB. */
export const CHECK_LOG_MAX = 8 * 1024 * 1024;

export function serializeCheck(r: CheckRecord): string {
  const delivered = r.commit ? { commit: r.commit } : {};
  const unchanged = r.unchanged ? { unchanged: true } : {};
  const tests = r.changedTests?.length ? { changedTests: r.changedTests } : {};
  const undelivered = r.undelivered ? { undelivered: r.undelivered.slice(0, 500) } : {};
  return (
    JSON.stringify({
      step: r.step,
      startedAt: r.startedAt.toISOString(),
      tries: r.tries,
      ...delivered,
      ...unchanged,
      ...tests,
      ...undelivered,
    }) + '\n'
  );
}

/** Changed paths kept at most, and the length of each. */
export const CHANGED_MAX = 200;

export function parseCheck(text: string): CheckRecord | null {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const startedAt = timeOf(v.startedAt);
    const tries = sessionNumber(v.tries);
    if (!CHECK_STEPS.includes(v.step as CheckStep) || !startedAt || tries === null || tries > 9) return null;
    const commit =
      typeof v.commit === 'string' && /^[0-9a-f]{40,64}$/.test(v.commit) ? { commit: v.commit } : {};
    const changed = Array.isArray(v.changedTests)
      ? v.changedTests
          .filter((p): p is string => typeof p === 'string' && p !== '' && p.length <= 300)
          .slice(0, CHANGED_MAX)
      : [];
    return {
      step: v.step as CheckStep,
      startedAt,
      tries,
      ...commit,
      ...(v.unchanged === true ? { unchanged: true } : {}),
      ...(changed.length > 0 ? { changedTests: changed } : {}),
      ...(typeof v.undelivered === 'string' && v.undelivered !== ''
        ? { undelivered: v.undelivered.slice(0, 500) }
        : {}),
    };
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
