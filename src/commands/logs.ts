import { closeSync, openSync, readSync, statSync } from 'node:fs';

import { hasSentinel } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { ANSI, eventType, NO_COLOR, renderLine } from '../core/agent/render.js';
import { runPaths } from '../core/run/paths.js';

export interface LogsOptions {
  follow?: boolean;
  raw?: boolean;
}

const POLL_MS = 250;

/** Reads what was appended since `offset`; whole lines only, the rest waits for the next read. */
function readFrom(path: string, offset: number): { lines: string[]; offset: number } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { lines: [], offset };
  }
  if (size < offset) offset = 0; // the file was replaced
  if (size === offset) return { lines: [], offset };
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    const text = buf.toString('utf8');
    const end = text.lastIndexOf('\n') + 1;
    return {
      lines: text.slice(0, end).split('\n').slice(0, -1),
      offset: offset + Buffer.byteLength(text.slice(0, end)),
    };
  } finally {
    closeSync(fd);
  }
}

export async function logsCommand(name: string, opts: LogsOptions, io: Io, isTty: boolean): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const r = await resolveRun(name, settings.runsDir, io, 'any');
  const paths = runPaths(r.root, r.id);
  const palette = isTty && !io.env.NO_COLOR ? ANSI : NO_COLOR;
  // A session that ends without a result event was killed or interrupted: say so where it ends.
  let open = false;
  const closeSession = () => {
    if (open) io.stdout(palette.red('■ no result: the session was interrupted or killed'));
    open = false;
  };
  const emit = (line: string) => {
    if (opts.raw) return io.stdout(line);
    const type = eventType(line);
    if (type === 'overnight_session') closeSession();
    if (type === 'system/init') open = true;
    if (type?.startsWith('result')) open = false;
    for (const out of renderLine(line, palette)) io.stdout(out);
  };
  let { lines, offset } = readFrom(paths.outputLog, 0);
  lines.forEach(emit);
  // Following ends with the run (once its log is drained) or with Ctrl-C.
  while (opts.follow) {
    const finished = hasSentinel(paths);
    ({ lines, offset } = readFrom(paths.outputLog, offset));
    lines.forEach(emit);
    if (finished && lines.length === 0) break;
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
  if (hasSentinel(paths)) closeSession();
  return 0;
}
