import { readFileSync, statSync } from 'node:fs';

import { hint, type Io } from '../app/io.js';
import { UsageError } from '../core/errors.js';
import { optionsInTask } from '../core/run/task.js';

// The task, from the command line's words, a file (--task-file) or standard input (`launch -`).

/** Claude Code refuses a prompt of about 3 MB before sending it; a brief must stay well below. */
export const TASK_MAX_BYTES = 2 * 1024 * 1024;
/** Beyond this, a brief may not fit a model's context (about 200k tokens): said, not refused. */
export const TASK_WARN_BYTES = 256 * 1024;

export interface TaskSource {
  words: string[];
  taskFile?: string;
}

export interface Task {
  text: string;
  warnings: string[];
}

export async function readTask(src: TaskSource, io: Io): Promise<Task> {
  const fromStdin = src.words.length === 1 && src.words[0] === '-';
  if (src.taskFile !== undefined && src.words.length > 0)
    throw new UsageError(
      `give the task one way: as words, with --task-file, or as - (read from standard input), not several`,
    );
  let text: string;
  const warnings: string[] = [];
  if (src.taskFile !== undefined) text = decode(readFile(src.taskFile), `--task-file ${src.taskFile}`);
  else if (fromStdin) text = decode(await readStdin(io), 'the task read from standard input');
  else {
    text = src.words.join(' ');
    const options = optionsInTask(src.words);
    if (options.length > 0)
      warnings.push(
        `warning: the task holds ${options.join(', ')}, which ${options.length === 1 ? 'is' : 'are'} ` +
          "launch's own: everything after `--` is the task. To set an option for the run, put it " +
          'before `--`.',
      );
  }
  if (text.trim() === '')
    throw new UsageError(
      `the task is empty; say what the agent should do: ${hint(io, 'launch "Survey CRDT libraries"')}`,
    );
  const bytes = Buffer.byteLength(text);
  if (bytes > TASK_MAX_BYTES) throw tooBig(bytes);
  if (bytes > TASK_WARN_BYTES)
    warnings.push(
      `warning: the task is ${mb(bytes)}; a model's context holds about 200,000 tokens (roughly 800 KB ` +
        'of English), so the first request may be refused as too long. A shorter brief that points ' +
        'at files works better.',
    );
  return { text, warnings };
}

/** A text file given with --task-file, whole (the notes of `continue`): UTF-8, at most TASK_MAX_BYTES. */
export function readTaskFile(path: string): string {
  return decode(readFile(path), `--task-file ${path}`);
}

function tooBig(bytes: number): UsageError {
  return new UsageError(
    `the task is ${mb(bytes)}; Claude Code refuses a prompt of about 3 MB, so a task may be at most ` +
      `${mb(TASK_MAX_BYTES)} (a few dozen KB is what a model reads well)`,
  );
}

const mb = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} KB`;

function readFile(path: string): Buffer {
  let size: number;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`--task-file ${path} is a directory; give the brief's file`);
    size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new UsageError(
      `--task-file ${path} ${missing ? 'does not exist' : `cannot be read (${(err as Error).message})`}`,
    );
  }
  if (size > TASK_MAX_BYTES) throw tooBig(size);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new UsageError(`--task-file ${path} cannot be read (${(err as Error).message})`);
  }
}

async function readStdin(io: Io): Promise<Buffer> {
  if (!io.readStdin) throw new UsageError('launch - reads the task from standard input, which is not there');
  if (io.stdinIsTty) io.stderr('Type the task, then Ctrl-D on a line of its own:');
  return io.readStdin();
}

/** UTF-8 text, kept byte for byte (a byte-order mark included): a brief is never altered. */
function decode(bytes: Buffer, what: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError(`${what} is not UTF-8 text; save it as UTF-8 and launch again`);
  }
  if (text.includes('\0')) throw new UsageError(`${what} holds NUL bytes; is it a binary file?`);
  return text;
}
