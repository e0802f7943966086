import { closeSync, openSync, readSync, statSync } from 'node:fs';

import { usableRunsRoot } from '../adapters/runs-root.js';
import { hasSentinel, readSentinel } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { ANSI, eventType, NO_COLOR, renderLine, type RenderContext } from '../core/agent/render.js';
import { localTime } from '../core/local-time.js';
import { runPaths } from '../core/run/paths.js';
import { safeText } from '../core/text.js';
import { logNotes } from '../dashboard/story.js';

export interface LogsOptions {
  follow?: boolean;
  raw?: boolean;
}

const POLL_MS = 250;

/**
 * The bytes appended since `offset`, whole lines only (the rest waits for the next read). Bytes,
 * not text: `--raw` into a pipe or a file must be the log exactly, invalid UTF-8 included.
 */
function readFrom(path: string, offset: number): { bytes: Buffer; offset: number } {
  const none = Buffer.alloc(0);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { bytes: none, offset };
  }
  if (size < offset) offset = 0; // the file was replaced
  if (size === offset) return { bytes: none, offset };
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    const read = readSync(fd, buf, 0, buf.length, offset);
    const end = buf.subarray(0, read).lastIndexOf(0x0a) + 1;
    return { bytes: buf.subarray(0, end), offset: offset + end };
  } finally {
    closeSync(fd);
  }
}

const linesOf = (bytes: Buffer): string[] =>
  bytes.length === 0 ? [] : bytes.toString('utf8').split('\n').slice(0, -1);

export async function logsCommand(name: string, opts: LogsOptions, io: Io, isTty: boolean): Promise<number> {
  const settings = await settingsWithWarnings(io);
  usableRunsRoot(settings.runsDir, 'read');
  const r = await resolveRun(name, settings.runsDir, io, 'any');
  const paths = runPaths(r.root, r.id);
  const palette = isTty && !io.env.NO_COLOR ? ANSI : NO_COLOR;
  // The night's story says when each session started, why, and how one without a result ended.
  const notes = await logNotes(paths);
  const ctx: RenderContext = opts.raw ? {} : { clock: localTime(), sessions: notes() };
  let open = false;
  let current: number | null = null;
  const closeSession = () => {
    const ended = current === null ? undefined : ctx.sessions?.get(current)?.ended;
    if (open) io.stdout(palette.red(`■ ${ended ?? 'no result: the session was interrupted or killed'}`));
    open = false;
  };
  // The stream as stored: exact into a pipe or a file; on a terminal, nothing in it is obeyed.
  const raw = opts.raw && !isTty;
  const emit = (line: string) => {
    if (opts.raw) return io.stdout(safeText(line));
    const type = eventType(line);
    if (type === 'overnight_session') {
      const next = sessionOf(line);
      // A session started while following: the story is read again, for how the one before
      // ended and why this one started.
      if (next !== null && ctx.sessions && !ctx.sessions.has(next)) ctx.sessions = notes();
      closeSession();
      current = next;
    }
    if (type === 'system/init') open = true;
    if (type?.startsWith('result')) open = false;
    for (const out of renderLine(line, palette, ctx)) io.stdout(out);
  };
  const bytesOut = io.stdoutBytes;
  const show = (bytes: Buffer) => (raw && bytesOut ? bytesOut(bytes) : linesOf(bytes).forEach(emit));
  let { bytes, offset } = readFrom(paths.outputLog, 0);
  show(bytes);
  // Following ends with the run (once its log is drained) or with Ctrl-C.
  while (opts.follow) {
    const finished = hasSentinel(paths);
    ({ bytes, offset } = readFrom(paths.outputLog, offset));
    show(bytes);
    if (finished && bytes.length === 0) break;
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
  if (hasSentinel(paths)) {
    // How the last session ended is known once the run is finished.
    if (ctx.sessions) ctx.sessions = notes();
    closeSession();
  }
  // The log of a finished run (and following one) ends by saying how the run ended.
  const sentinel = opts.raw ? null : readSentinel(paths);
  if (sentinel) {
    const paint = sentinel.kind === 'DONE' ? palette.bold : palette.red;
    io.stdout(paint(safeText(`■ the run is ${sentinel.kind}: ${sentinel.reason}`)));
  }
  return 0;
}

function sessionOf(line: string): number | null {
  try {
    const n = (JSON.parse(line) as { session?: unknown }).session;
    return typeof n === 'number' ? n : null;
  } catch {
    return null;
  }
}
