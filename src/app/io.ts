import type { Clock } from '../adapters/clock.js';

/** What a command may touch of the outside world besides files: output, environment, clock. */
export interface Io {
  stdout: (line: string) => void;
  /** Bytes exactly as given, no newline added (`logs --raw` into a pipe or a file). */
  stdoutBytes?: (bytes: Uint8Array) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
  now: Clock;
}
