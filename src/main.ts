import { systemClock } from './adapters/clock.js';
import { fdOutput } from './app/fd-output.js';
import { commandToRun, type Io } from './app/io.js';
import { buildCli, CommanderError } from './cli.js';
import { describeIoError } from './core/io-error.js';
import { maskSecrets } from './core/mask.js';
import { describeFsError } from './core/run/runs-root.js';
import { safeText } from './core/text.js';

// The entry point: runs the CLI and maps errors to exit codes. The only place that exits.

// Errors and warnings may quote a file, a value or the agent: nothing in them reaches the terminal
// as a control sequence. Each command makes its own output safe (`logs` adds colour of its own).
// process.stdin, process.stdout and process.stderr are streams made on first use, and node:tty
// brings the net and stream modules: all are touched only when read or asked about (output is
// written to the descriptors directly, see fd-output.ts), so a pass with nothing to say, or a
// `status --json`, loads none of them.
const isatty = (fd: number) => process.getBuiltinModule('node:tty').isatty(fd);
const out = fdOutput(1, () => process.stdout);
// A log on a full disk (a pass's `>> reconcile.log`) must not end the pass mid-round: it would
// die holding the lock, with no owner record to tell it gone, and every pass would wait it out.
// Neither output ever throws.
const err = fdOutput(2, () => process.stderr);
const io: Io = {
  stdout: (line) => out.write(line + '\n'),
  stdoutBytes: (bytes) => out.write(bytes),
  // A URL in an error (a webhook's, with its token) is masked: see core/mask.ts.
  stderr: (line) => {
    err.write(safeText(maskSecrets(line)) + '\n');
  },
  env: process.env,
  now: systemClock,
  cmd: commandToRun(process.env),
  readStdin,
  get stdinIsTty() {
    return isatty(0);
  },
  get stdoutIsTty() {
    return isatty(1);
  },
  // Only a terminal has a width: a pipe or a file makes no stream to learn that it has none.
  get columns() {
    return (isatty(1) && out.stream().columns) || undefined;
  },
  get ask() {
    return isatty(0) && isatty(2) ? ask : undefined;
  },
};

/** The error in one line: a filesystem error in words (the path and the problem), never errno text. */
function messageOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (typeof e.code === 'string' && /^E[A-Z0-9]+$/.test(e.code))
    return describeFsError({ code: e.code, path: e.path, dest: (e as { dest?: string }).dest });
  // A wrapped message ("<path>: ENOSPC: …") still carries its code: said in words too.
  return describeIoError({ code: undefined, message: e.message ?? String(err) });
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** One question at the terminal, answered by a line (the question goes to stderr, like a prompt). */
async function ask(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

function codeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
  const code = (err as { exitCode?: unknown }).exitCode;
  return typeof code === 'number' ? code : 1;
}

async function main(): Promise<number> {
  let exitCode = 0;
  try {
    await buildCli(io, (c) => (exitCode = c), process.argv.slice(2)).parseAsync(process.argv);
    return exitCode;
  } catch (err) {
    const code = codeOf(err);
    // Commander has already printed its own message.
    if (!(err instanceof CommanderError)) {
      io.stderr(
        process.env.OVERNIGHT_DEBUG === '1'
          ? String((err as Error).stack ?? err)
          : `overnight: ${messageOf(err)}`,
      );
    }
    return code;
  }
}

main().then((code) => {
  process.exitCode = code;
  // Exit once stdout and stderr have drained into their pipes, even if a stray handle (a lock
  // timer) is still open: exiting earlier cuts a long `status --json` short.
  let pending = 3;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  out.flush(done);
  err.flush(done);
  done();
});
