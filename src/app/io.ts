import type { Clock } from '../adapters/clock.js';

/** What a command may touch of the outside world besides files: output, environment, clock. */
export interface Io {
  stdout: (line: string) => void;
  /** Bytes exactly as given, no newline added (`logs --raw` into a pipe or a file). */
  stdoutBytes?: (bytes: Uint8Array) => void;
  stderr: (line: string) => void;
  env: NodeJS.ProcessEnv;
  now: Clock;
  /** The command that runs overnight the way the person started it (see `hint`); `overnight` if unset. */
  cmd?: string;
  /** All of standard input, as bytes (`launch -`); a terminal is read until end of file (Ctrl-D). */
  readStdin?: () => Promise<Buffer>;
  /** Standard output is a terminal: colour, and its width in cells (`columns`). */
  stdoutIsTty?: boolean;
  columns?: number;
  /** Standard input is a terminal (someone may be typing the task). */
  stdinIsTty?: boolean;
  /** Asks the person at a terminal and returns the answer; absent when no one is at one. */
  ask?: (question: string) => Promise<string>;
}

/** `overnight <args>`, or `npx overnight <args>` when the person runs it through npx. */
export function hint(io: Pick<Io, 'cmd'>, args: string): string {
  return `${io.cmd ?? 'overnight'} ${args}`;
}

/**
 * Under npx (`npx overnight …`, `npm exec overnight …`) a bare `overnight` is usually not on the
 * PATH, so hints say `npx overnight`; npm marks the commands it runs so.
 */
export function commandToRun(env: NodeJS.ProcessEnv): string {
  return env.npm_command === 'exec' || env.npm_lifecycle_event === 'npx' ? 'npx overnight' : 'overnight';
}
