import { closeSync, fstatSync, openSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

import {
  CHUNK,
  readAt,
  readLines,
  readLinesBackward,
  type Line,
  type LineCursor,
} from '../adapters/lines.js';
import { hasSentinel } from '../adapters/store.js';
import { readStreamView } from '../adapters/stream-index.js';
import type { Io } from '../app/io.js';
import { eventType, renderLine, type Palette, type RenderContext } from '../core/agent/render.js';
import type { LocalTime } from '../core/local-time.js';
import type { RunPaths } from '../core/run/paths.js';
import type { SessionNote } from '../core/status/log-notes.js';
import { safeText } from '../core/text.js';

// `overnight logs`: a run's output.log for a person, read in chunks whatever its size. The tail
// of the current session by default, every session with --all, and -f follows from there.

export interface LogsView {
  /**
   * --raw: the stored bytes exactly (into a pipe or a file, invalid UTF-8 included), or the stored
   * text made safe for a terminal; null shows the lines rendered.
   */
  raw: 'bytes' | 'safe' | null;
  palette: Palette;
  /** Reads the night's story of each session (why it started, how it ended); null with --raw. */
  notes?: (() => Map<number, SessionNote>) | null;
  clock?: LocalTime;
}

/** How often -f looks for new output. */
const POLL_MS = 250;

/** Prints lines as a person reads them, saying where a session ended without a result. */
export class LogPrinter {
  private open: boolean;
  private current: number | null;
  /** A line was printed: a session header before any closes nothing (it is not the one before). */
  private started = false;
  private readonly ctx: RenderContext;

  constructor(
    readonly view: LogsView,
    private readonly io: Io,
  ) {
    const notes = view.notes?.();
    this.ctx = notes && view.clock ? { clock: view.clock, sessions: notes } : {};
    // Until a session's header is read (a tail starts inside the last session), it is the last one.
    this.current = notes && notes.size > 0 ? Math.max(...notes.keys()) : null;
    this.open = this.current !== null && notes?.get(this.current)?.ended != null;
  }

  /** The story read again: a session started, or the run ended, since it was read. */
  refresh(): void {
    const notes = this.view.notes?.();
    if (notes && this.ctx.clock) this.ctx.sessions = notes;
  }

  /** What one line shows; nothing is printed. */
  render(line: Line): string[] {
    if (line.tail !== undefined) return [this.view.palette.dim(longLineNote(line))];
    return renderLine(line.text, this.view.palette, this.ctx);
  }

  /** `fd` is the log the line was read from (a long line is copied from it). */
  print(fd: number, line: Line): void {
    if (this.view.raw) return this.printRaw(fd, line);
    const type = line.tail === undefined ? eventType(line.text) : null;
    if (type === 'overnight_session') {
      const next = sessionOf(line.text);
      // A session started while following: how the one before ended and why this one started.
      if (next !== null && !this.ctx.sessions?.has(next)) this.refresh();
      // The first line read is a session's header (--all, or a short last session): nothing
      // before it is open, whatever the last session's story says.
      if (this.started) this.closeSession();
      else this.open = false;
      this.current = next;
    }
    if (type === 'system/init') this.open = true;
    if (type?.startsWith('result')) this.open = false;
    this.started = true;
    for (const out of this.render(line)) this.io.stdout(out);
  }

  /** A session that ends without a result event: how it ended, from the story, where it ends. */
  closeSession(): void {
    const ended = this.current === null ? undefined : this.ctx.sessions?.get(this.current)?.ended;
    if (this.open)
      this.io.stdout(
        this.view.palette.red(`■ ${ended ?? 'no result: the session was interrupted or killed'}`),
      );
    this.open = false;
  }

  /** The line as stored; a line over the cap is copied through in chunks, never held whole. */
  private printRaw(fd: number, line: Line): void {
    const out = this.io.stdoutBytes;
    const bytes = this.view.raw === 'bytes';
    if (!out || (!bytes && line.tail === undefined)) return this.io.stdout(safeText(line.text));
    const decoder = new StringDecoder('utf8');
    for (let at = line.at; at < line.end; at += CHUNK) {
      const chunk = readAt(fd, at, Math.min(CHUNK, line.end - at));
      out(bytes ? chunk : Buffer.from(safeText(decoder.write(chunk))));
    }
    if (!bytes) out(Buffer.from(safeText(decoder.end())));
  }
}

function sessionOf(text: string): number | null {
  try {
    const n = (JSON.parse(text) as { session?: unknown }).session;
    return typeof n === 'number' ? n : null;
  } catch {
    return null;
  }
}

function longLineNote(line: Line): string {
  const mb = ((line.end - line.at) / 1024 / 1024).toFixed(1);
  const type = /"type":"(\w+)"/.exec(line.text)?.[1] ?? 'non-JSON';
  return `[a ${type} line of ${mb} MB, too long to show; --raw prints it]`;
}

/**
 * The current session's last `count` lines as shown (raw lines with --raw). Returns where a
 * follower goes on from: the end of the last whole line.
 */
export function printTail(paths: RunPaths, count: number, printer: LogPrinter, io: Io): number {
  const { starts, size } = readStreamView(paths);
  const from = starts.at(-1) ?? 0;
  return withLog(paths, from, (fd) => {
    const picked: Line[] = [];
    let shown = 0;
    let followFrom = from;
    readLinesBackward(fd, from, size, (line) => {
      if (picked.length === 0) followFrom = line.end;
      picked.unshift(line);
      shown += printer.view.raw ? 1 : printer.render(line).length;
      return shown < count;
    });
    const first = picked[0];
    if (!printer.view.raw && first && first.at > from) {
      const note =
        `… earlier lines of session ${starts.length} hidden ` + '(overnight logs --all shows every session)';
      io.stdout(printer.view.palette.dim(note));
    }
    for (const line of picked) printer.print(fd, line);
    return followFrom;
  });
}

/** Every line of the log, a chunk at a time. Returns the end of the last whole line. */
export function printAll(paths: RunPaths, printer: LogPrinter): number {
  return withLog(paths, 0, (fd) => {
    const cursor: LineCursor = { offset: 0, long: null };
    readLines(fd, cursor, fstatSync(fd).size, (line) => printer.print(fd, line));
    return cursor.long ? cursor.long.start : cursor.offset;
  });
}

/** Prints what is appended after `offset` until the run is finished and its log drained. */
export async function follow(paths: RunPaths, offset: number, printer: LogPrinter): Promise<void> {
  const cursor: LineCursor = { offset, long: null };
  for (;;) {
    const finished = hasSentinel(paths);
    const printed = withLog(paths, 0, (fd) => {
      const size = fstatSync(fd).size;
      if (size < cursor.offset) Object.assign(cursor, { offset: 0, long: null }); // replaced
      let n = 0;
      readLines(fd, cursor, size, (line) => {
        printer.print(fd, line);
        n++;
      });
      return n;
    });
    if (finished && printed === 0) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** `use(fd)` with the log open; `missing` when there is no log yet. */
function withLog<T>(paths: RunPaths, missing: T, use: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(paths.outputLog, 'r');
  } catch {
    return missing;
  }
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}
