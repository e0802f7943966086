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
 * PATH, so hints say `npx` and the name it was run by (`npx overnight-agent` when so), which npm
 * gives, shell-quoted, as the script it runs.
 */
export function commandToRun(env: NodeJS.ProcessEnv): string {
  if (env.npm_command !== 'exec' && env.npm_lifecycle_event !== 'npx') return 'overnight';
  const ran = /^'?([A-Za-z0-9@._/-]+)'?(?:\s|$)/.exec(env.npm_lifecycle_script ?? '')?.[1];
  return `npx ${ran && /^(?:@[\w.-]+\/)?overnight(?:-agent)?(?:@[\w.-]+)?$/.test(ran) ? ran : 'overnight'}`;
}
