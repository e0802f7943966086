import { systemClock } from './adapters/clock.js';
import type { Io } from './app/io.js';
import { buildCli, CommanderError } from './cli.js';
import { describeIoError } from './core/io-error.js';

// The entry point: runs the CLI and maps errors to exit codes. The only place that exits.

const io: Io = {
  stdout: (line) => process.stdout.write(line + '\n'),
  write: (text) => process.stdout.write(text),
  stderr: (line) => process.stderr.write(line + '\n'),
  env: process.env,
  now: systemClock,
};

function codeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  const code = (err as { exitCode?: unknown }).exitCode;
  return typeof code === 'number' ? code : 1;
}

/** An error of the system in words ("no space left on device (ENOSPC)"), with the file it concerns. */
function said(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code !== 'string' || !/^E[A-Z]+$/.test(e.code)) return e?.message ?? String(err);
  return describeIoError(e) + (e.path ? `: ${e.path}` : '');
}

async function main(): Promise<number> {
  let exitCode = 0;
  try {
    await buildCli(io, (c) => (exitCode = c)).parseAsync(process.argv);
    return exitCode;
  } catch (err) {
    const code = codeOf(err);
    // Commander has already printed its own message.
    if (!(err instanceof CommanderError)) {
      io.stderr(
        process.env.OVERNIGHT_DEBUG === '1' ? String((err as Error).stack ?? err) : `overnight: ${said(err)}`,
      );
    }
    return code;
  }
}

// A reader that went away (`status | head`) is not an error worth a stack trace.
process.stdout.on('error', () => {});

main().then((code) => {
  process.exitCode = code;
  // Exit once stdout and stderr have drained into their pipes, even if a stray handle (a lock
  // timer) is still open: exiting earlier cuts a long `status --json` short.
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
});
