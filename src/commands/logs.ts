import { closeSync, openSync, readSync, statSync } from 'node:fs';

import { usableRunsRoot } from '../adapters/runs-root.js';
import { hasSentinel } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { ANSI, eventType, NO_COLOR, renderLine } from '../core/agent/render.js';
import { runPaths } from '../core/run/paths.js';
import { safeText } from '../core/text.js';

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
  // A session that ends without a result event was killed or interrupted: say so where it ends.
  let open = false;
  const closeSession = () => {
    if (open) io.stdout(palette.red('■ no result: the session was interrupted or killed'));
    open = false;
  };
  // The stream as stored: exact into a pipe or a file; on a terminal, nothing in it is obeyed.
  const raw = opts.raw && !isTty;
  const emit = (line: string) => {
    if (opts.raw) return io.stdout(safeText(line));
    const type = eventType(line);
    if (type === 'overnight_session') closeSession();
    if (type === 'system/init') open = true;
    if (type?.startsWith('result')) open = false;
    for (const out of renderLine(line, palette)) io.stdout(out);
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
  if (hasSentinel(paths)) closeSession();
  return 0;
}
