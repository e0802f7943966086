import type { Clock } from '../adapters/clock.js';

/** What a command may touch of the outside world besides files: output, environment, clock. */
export interface Io {
  stdout: (line: string) => void;
  /** Text as it is, without a newline added (a log's bytes copied through); stdout where absent. */
  write?: (text: string) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
  now: Clock;
}
