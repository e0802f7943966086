// Runs a program without a shell, in exactly the environment given, with a deadline for its whole
// process group (a child it left behind must not keep us waiting) and a cap on its output. One
// helper for every short command overnight runs (notification commands, the doctor's probes,
// Slurm's commands); each caller says the outcome in its own words.

type Env = Record<string, string | undefined>;

/** How a bounded command went: it ran (to an exit, a signal, the deadline or the cap), or threw. */
export type Bounded =
  | {
      /** undefined when it did not exit (killed, or never started). */
      exitCode: number | undefined;
      signal: string | null;
      stdout: string;
      stderr: string;
      /** Killed at the deadline. */
      timedOut: boolean;
      /** The spawn error's code (ENOENT, EACCES, …), when it could not start. */
      code?: string;
      isMaxBuffer: boolean;
      shortMessage?: string;
      originalMessage?: string;
    }
  | { thrown: string | undefined };

export interface BoundedOptions {
  env: Env;
  timeoutMs: number;
  /** Bytes of stdout (and of stderr) kept at most. */
  maxBuffer: number;
  /** Written to its stdin; without it, stdin is closed. */
  input?: string;
}

/**
 * Runs `file` with a deadline: it gets its own process group, killed whole at the deadline (a
 * child it left behind would otherwise keep the output pipes open, and us waiting, as long as it
 * lives).
 */
export async function runBounded(file: string, args: string[], opts: BoundedOptions): Promise<Bounded> {
  const { execa } = await import('execa');
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    const sub = execa(file, args, {
      env: opts.env,
      extendEnv: false,
      reject: false,
      ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
      detached: true,
      maxBuffer: opts.maxBuffer,
    });
    timer = setTimeout(() => {
      timedOut = true;
      try {
        if (sub.pid !== undefined) process.kill(-sub.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, opts.timeoutMs);
    const r = await sub;
    const code = (r as { code?: string }).code;
    return {
      exitCode: r.exitCode,
      signal: r.signal ?? null,
      stdout: String(r.stdout ?? ''),
      stderr: String(r.stderr ?? ''),
      timedOut,
      ...(code === undefined ? {} : { code }),
      isMaxBuffer: r.isMaxBuffer,
      ...(r.shortMessage === undefined ? {} : { shortMessage: r.shortMessage }),
      ...(r.originalMessage === undefined ? {} : { originalMessage: r.originalMessage }),
    };
  } catch (err) {
    return { thrown: (err as Error).message.split('\n')[0] };
  } finally {
    clearTimeout(timer);
  }
}

export type CommandResult =
  | { exitCode: number; signal: string | null; stdout: string; stderr: string }
  | { error: string; missing?: boolean };

/** A notification command: `input` on its stdin, 64 KiB of output kept. */
export async function runWithInput(
  file: string,
  args: string[],
  env: Env,
  input: string,
  timeoutMs: number,
): Promise<CommandResult> {
  const r = await runBounded(file, args, { env, input, timeoutMs, maxBuffer: 64 * 1024 });
  if ('thrown' in r) return { error: r.thrown ?? 'could not be started' };
  if (r.timedOut) return { error: `no answer within ${Math.round(timeoutMs / 100) / 10}s` };
  if (r.code === 'ENOENT') return { error: 'not found', missing: true };
  if (r.code === 'EACCES') return { error: 'not executable (chmod +x it)', missing: true };
  if (r.exitCode === undefined && !r.signal) return { error: r.shortMessage ?? 'could not be started' };
  return { exitCode: r.exitCode ?? 128, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}
