import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

import type { SessionLog } from '../core/agent/stream.js';
import { RunFileError } from '../core/errors.js';
import {
  parseContinuation,
  parseContinuedBy,
  type Continuation,
  type ContinuedBy,
} from '../core/run/continuation.js';
import { isRunId } from '../core/run/naming.js';
import { recordsDir, rootPaths, type RunPaths } from '../core/run/paths.js';
import {
  formatRestart,
  parseExitRecord,
  parsePidRecord,
  parseRestartLog,
  parseSession,
  serializeSession,
  specFromDoc,
  specToDoc,
} from '../core/run/records.js';
import { parseSentinel, sentinelText } from '../core/run/sentinel.js';
import type { ExitRecord, RestartEntry, RunSpec, Sentinel, SessionRecord } from '../core/run/types.js';
import type { Cause } from '../core/supervise/causes.js';
import { appendLine, exists, mtime, readHead, writeFileAtomic } from './files.js';
import { readStreamView } from './stream-index.js';
import { loadYaml } from './yaml.js';

// Reads and writes one run's files. Names come from the run id; nothing is stored twice. Every read
// is bounded: a record is read up to a size it never reaches, a log from its end.

/** Small records (session, pid, exit, sentinel, links): a few hundred bytes when overnight writes them. */
const RECORD_MAX = 64 * 1024;
/** run.yaml and its JSON twin hold the task, which may be a long brief. */
const SPEC_MAX = 16 * 1024 * 1024;
/** How much of restart.log's end is read: thousands of lines, more than any breaker counts. */
export const RESTART_LOG_TAIL = 1024 * 1024;

/** A record's text, or null; one larger than `max` is refused (not overnight's, or corrupt). */
function readRecord(path: string, max = RECORD_MAX): string | null {
  const text = readHead(path, max + 1);
  if (text !== null && Buffer.byteLength(text) > max) throw new Error(`${path}: larger than ${max} bytes`);
  return text;
}

/**
 * A record that is usually absent (a sentinel, a hang timer, a follow-up's link), looked for before
 * it is opened: a failed open costs an exception, and a pass makes one a run for each otherwise.
 */
function readRareRecord(path: string, max = RECORD_MAX): string | null {
  return exists(path) ? readRecord(path, max) : null;
}

/** Run ids under the root, oldest first; anything else there (logs, locks, temp dirs) is ignored. */
export function listRunIds(root: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.filter(isRunId).sort();
}

/** run.yaml's size and mtime: its JSON twin is used only while they still match. */
function fingerprint(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * run.yaml is the spec; `.overnight/spec.json` is a derived copy that spares each pass the
 * YAML parser (the largest part of a pass over live runs) and is ignored once run.yaml changes.
 */
export async function readSpec(paths: RunPaths): Promise<RunSpec> {
  const print = fingerprint(paths.runYaml);
  try {
    const cached = JSON.parse(readRecord(paths.specCache, SPEC_MAX) ?? 'null') as {
      of?: string;
      doc?: unknown;
    } | null;
    if (cached && print !== null && cached.of === print) return specFromDoc(cached.doc);
  } catch {
    // a stale or torn cache: read run.yaml itself
  }
  let text: string | null;
  try {
    text = readRecord(paths.runYaml, SPEC_MAX);
  } catch (err) {
    throw new RunFileError('run.yaml', `cannot be read (${(err as Error).message})`);
  }
  if (text === null) throw new RunFileError('run.yaml', 'is missing');
  try {
    const { parse } = await loadYaml();
    return specFromDoc(parse(text));
  } catch (err) {
    throw new RunFileError('run.yaml', `is corrupt (${(err as Error).message.split('\n')[0]})`);
  }
}

export async function writeSpec(
  paths: Pick<RunPaths, 'runYaml' | 'specCache'>,
  spec: RunSpec,
): Promise<void> {
  const { stringify } = await loadYaml();
  const doc = specToDoc(spec);
  writeFileAtomic(paths.runYaml, stringify(doc, { lineWidth: 0 }));
  const print = fingerprint(paths.runYaml);
  if (print !== null) writeFileAtomic(paths.specCache, JSON.stringify({ of: print, doc }) + '\n');
}

export function readSentinel(paths: RunPaths): Sentinel | null {
  for (const kind of ['FAILED', 'DONE'] as const) {
    // Read for its first two lines only: the reason and the code.
    const path = kind === 'DONE' ? paths.done : paths.failed;
    const text = exists(path) ? readHead(path, 4096) : null;
    if (text !== null) return parseSentinel(kind, text);
  }
  return null;
}

export function hasSentinel(paths: RunPaths): boolean {
  return exists(paths.done) || exists(paths.failed);
}

/**
 * The record first (what passes decide from), then the view in the run's directory for people. The
 * agent may replace or delete the view; nothing reads it back.
 */
export function writeSentinel(paths: RunPaths, kind: Sentinel['kind'], reason: string, cause: Cause): void {
  const text = sentinelText(reason, cause);
  writeFileAtomic(kind === 'DONE' ? paths.done : paths.failed, text);
  writeView(kind === 'DONE' ? paths.doneView : paths.failedView, text);
}

/** Why the finished run's DONE or FAILED view is not there as written (something in its place), or null. */
export function sentinelViewProblem(paths: RunPaths): string | null {
  const sentinel = readSentinel(paths);
  if (!sentinel) return null;
  const view = sentinel.kind === 'DONE' ? paths.doneView : paths.failedView;
  try {
    if (!lstatSync(view).isDirectory()) return null;
  } catch {
    return null;
  }
  return `${view} was not written: ${viewInTheWay(view)}`;
}

/**
 * A view is written in place of whatever is there (a link the agent made is replaced, not
 * followed); what cannot be replaced (a directory the agent made at its name) is left alone, and
 * the view refused for this run only: the reason, or null when it was written.
 */
export function writeView(path: string, text: string): string | null {
  try {
    writeFileAtomic(path, text);
    return null;
  } catch (err) {
    // the run's directory is gone or unwritable: the record stands, the view is for people only
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return `${path} was not written (${code}): ${viewInTheWay(path)}`;
  }
}

/** What stands at a view's name, in words, when it is not a file overnight can replace. */
function viewInTheWay(path: string): string {
  try {
    const st = lstatSync(path);
    if (st.isDirectory())
      return 'a directory is in its place (made by the agent?); remove it to see the view';
  } catch {
    // nothing there: the directory around it is the problem
  }
  return "the run's directory cannot be written";
}

export function readSession(paths: RunPaths): SessionRecord | null {
  const text = readRecord(paths.session);
  if (text === null) return null;
  try {
    return parseSession(text);
  } catch {
    throw new RunFileError(paths.session, 'is corrupt; remove it to have the next pass resume the run');
  }
}

export function writeSession(paths: RunPaths, session: SessionRecord): void {
  writeFileAtomic(paths.session, serializeSession(session));
}

export function readRestarts(paths: RunPaths): RestartEntry[] {
  return parseRestartLog(readLogTail(paths.restartLog, RESTART_LOG_TAIL));
}

export function appendRestart(paths: RunPaths, entry: RestartEntry): void {
  appendLine(paths.restartLog, formatRestart(entry));
}

/** One JSON line per transition, for status and for the person reading it in the morning. */
export function appendEvent(paths: RunPaths, at: Date, event: Record<string, unknown>): void {
  appendLine(paths.events, JSON.stringify({ at: at.toISOString(), ...event }));
}

/** The current session's agent: pid and start time as the wrapper recorded them. */
export function readAgent(
  paths: RunPaths,
  session: SessionRecord | null,
): { pid: number; startTime: string } | null {
  if (!session) return null;
  const text = readRecord(paths.pidFile(session.n));
  return text === null ? null : parsePidRecord(text);
}

/**
 * The session's wrapper as it recorded itself (local backends). Only a whole line is believed:
 * the wrapper writes it without a rename, and a torn one is no record.
 */
export function readWrapper(paths: RunPaths, n: number): { pid: number; startTime: string } | null {
  const text = readRecord(paths.wrapperFile(n));
  return text === null || !text.endsWith('\n') ? null : parsePidRecord(text);
}

/**
 * Each session's record from output.log, read through the stream index: a reader pays for the
 * bytes written since the last one, never for the whole log.
 */
export function readSessionLogs(paths: RunPaths, save = true): SessionLog[] {
  return readStreamView(paths, save).sessions;
}

/** The last `bytes` of a file as text (a quiet agent's last words), or "" when it cannot be read. */
export function readTail(path: string, bytes: number): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(bytes, size));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      return buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/**
 * The last `bytes` of a log as whole lines: the first, cut, line is dropped when the log is longer.
 * A log's size never decides what is read (a 600 MB one is read as its last `bytes`).
 */
export function readLogTail(path: string, bytes: number): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(bytes, size));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      if (buf.length === size) return buf.toString('utf8');
      const nl = buf.indexOf(0x0a);
      return nl < 0 ? '' : buf.toString('utf8', nl + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/** The hang timer of session `n`, if a pass has seen it silent. */
export function readStaleSince(paths: RunPaths, n: number): Date | null {
  const m = /^(\d{1,9}) (\S{1,64})/.exec(readRareRecord(paths.staleSince) ?? '');
  const at = m && Number(m[1]) === n ? new Date(m[2] as string) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

export function markStale(paths: RunPaths, n: number, at: Date): void {
  writeFileAtomic(paths.staleSince, `${n} ${at.toISOString()}\n`);
}

/**
 * Session `n`'s exit record. The file's mtime is when the agent ended, to the millisecond; the
 * epoch inside is whole seconds.
 */
export function readExitRecord(paths: RunPaths, n: number): ExitRecord | null {
  const text = readRecord(paths.exitFile(n));
  const record = text === null ? null : parseExitRecord(text, n);
  const at = record ? mtime(paths.exitFile(n)) : null;
  return record && at ? { ...record, at } : record;
}

/** A follow-up's record of what it took over; null when there is none or it cannot be used. */
export function readContinuation(paths: RunPaths): Continuation | null {
  try {
    const text = readRecord(paths.continuation, SPEC_MAX);
    return text === null ? null : parseContinuation(text);
  } catch {
    return null;
  }
}

/** The follow-up that continues this run, as its link says (it may since have been removed). */
export function readContinuedBy(paths: RunPaths): ContinuedBy | null {
  try {
    const text = readRareRecord(paths.continuedBy);
    return text === null ? null : parseContinuedBy(text);
  } catch {
    return null;
  }
}

/** A run of that id under the runs root, archived or not. */
/** An id is taken by a run, an archived one, or records left without their run. */
export function runExists(runsRoot: string, id: string): boolean {
  const archive = rootPaths(runsRoot).archive;
  return [join(runsRoot, id), recordsDir(runsRoot, id), join(archive, id), recordsDir(archive, id)].some(
    (p) => exists(p),
  );
}
