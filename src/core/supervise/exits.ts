import type { RestartEntry } from '../run/types.js';

// How a session's end is named, and which restarts the circuit breaker counts.

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  15: 'SIGTERM',
};

/** `exit 1`, `killed by SIGKILL (exit 137)`, or `no exit status recorded`. */
export function describeExit(code: number | null): string {
  if (code === null) return 'no exit status recorded';
  if (code > 128 && code < 160) {
    const name = SIGNALS[code - 128] ?? `signal ${code - 128}`;
    return `killed by ${name} (exit ${code})`;
  }
  return `exit ${code}`;
}

/** Restarts the circuit breaker counts: resumes after a crash, not synthesis. */
export function crashRestarts(restarts: readonly RestartEntry[]): number {
  return restarts.filter((r) => r.mode === 'resume').length;
}
