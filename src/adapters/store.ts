import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

import {
  authFailuresInARow,
  failedResumesInARow,
  parseStream,
  summarizeUsage,
  type SessionLog,
} from '../core/agent/stream.js';
import { isRunId, wrapperInPanes } from '../core/run/naming.js';
import { rootPaths, type RunPaths } from '../core/run/paths.js';
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
import type {
  ExitRecord,
  Observation,
  RestartEntry,
  RunSpec,
  Sentinel,
  SessionRecord,
} from '../core/run/types.js';
import { waitingPrompt } from '../core/supervise/classify.js';
import { classifyLimit } from '../core/supervise/limits.js';
import { appendLine, exists, mtime, readText, writeFileAtomic } from './files.js';
import { isAlive } from './processes.js';
import type { PaneInfo } from './tmux.js';
import { transcriptSize } from './transcript.js';
import { loadYaml } from './yaml.js';

// Reads and writes one run's files. Names come from the run id; nothing is stored twice.

/** A file of a run that cannot be used, named so the user can fix it. */
export class RunFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
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
    const cached = JSON.parse(readText(paths.specCache) ?? 'null') as { of?: string; doc?: unknown } | null;
    if (cached && print !== null && cached.of === print) return specFromDoc(cached.doc);
  } catch {
    // a stale or torn cache: read run.yaml itself
  }
  let text: string | null;
  try {
    text = readText(paths.runYaml);
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

export async function writeSpec(paths: RunPaths, spec: RunSpec): Promise<void> {
  const { stringify } = await loadYaml();
  const doc = specToDoc(spec);
  writeFileAtomic(paths.runYaml, stringify(doc, { lineWidth: 0 }));
  const print = fingerprint(paths.runYaml);
  if (print !== null) writeFileAtomic(paths.specCache, JSON.stringify({ of: print, doc }) + '\n');
}

export function readSentinel(paths: RunPaths): Sentinel | null {
  for (const kind of ['FAILED', 'DONE'] as const) {
    const text = readText(kind === 'DONE' ? paths.done : paths.failed);
    if (text !== null)
      return { kind, reason: text.trim().split('\n')[0] || (kind === 'DONE' ? 'done' : 'failed') };
  }
  return null;
}

export function hasSentinel(paths: RunPaths): boolean {
  return exists(paths.done) || exists(paths.failed);
}

export function writeSentinel(paths: RunPaths, kind: Sentinel['kind'], reason: string): void {
  writeFileAtomic(kind === 'DONE' ? paths.done : paths.failed, reason.replace(/\n/g, ' ') + '\n');
}

export function readSession(paths: RunPaths): SessionRecord | null {
  const text = readText(paths.session);
  if (text === null) return null;
  try {
    return parseSession(text);
  } catch {
    throw new RunFileError(
      '.overnight/session.json',
      'is corrupt; remove it to have the next pass resume the run',
    );
  }
}

export function writeSession(paths: RunPaths, session: SessionRecord): void {
  writeFileAtomic(paths.session, serializeSession(session));
}

export function readRestarts(paths: RunPaths): RestartEntry[] {
  return parseRestartLog(readText(paths.restartLog) ?? '');
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
  const text = readText(paths.pidFile(session.n));
  return text === null ? null : parsePidRecord(text);
}

/** Each session's record, rebuilt from the raw output.log. */
export function readSessionLogs(paths: RunPaths): SessionLog[] {
  return parseStream(readText(paths.outputLog) ?? '');
}

/** Output quiet this long (or stale_after, if shorter) is looked at for a prompt. */
const PROMPT_QUIET_S = 10;

/** The last few KB of a quiet agent's output, when they end with a question; busy agents cost nothing. */
function promptAtTheEnd(paths: RunPaths, spec: RunSpec): string | null {
  const at = mtime(paths.outputLog);
  if (!at || Date.now() - at.getTime() < Math.min(PROMPT_QUIET_S, spec.limits.staleAfter) * 1000) return null;
  try {
    const fd = openSync(paths.outputLog, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(Math.min(4096, size));
      readSync(fd, buf, 0, buf.length, size - buf.length);
      return waitingPrompt(buf.toString('utf8'));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The hang timer of session `n`, if a pass has seen it silent. */
function readStaleSince(paths: RunPaths, n: number): Date | null {
  const m = /^(\d+) (\S+)/.exec(readText(paths.staleSince) ?? '');
  const at = m && Number(m[1]) === n ? new Date(m[2] as string) : null;
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

export function markStale(paths: RunPaths, n: number, at: Date): void {
  writeFileAtomic(paths.staleSince, `${n} ${at.toISOString()}\n`);
}

/** The file's mtime is when the agent ended, to the millisecond; the epoch inside is whole seconds. */
function exitRecord(paths: RunPaths, text: string, n: number): ExitRecord | null {
  const record = parseExitRecord(text, n);
  const at = mtime(paths.exitFile(n));
  return record && at ? { ...record, at } : record;
}

/** The log is only read when a decision may depend on it: a pass over healthy runs stays cheap. */
function endedSession(
  paths: RunPaths,
  session: SessionRecord | null,
  endedAt: Date,
): Pick<Observation, 'costUsd' | 'result' | 'conversation' | 'limit' | 'authFailures' | 'failedResumes'> {
  if (!session)
    return { costUsd: 0, result: null, conversation: null, limit: null, authFailures: 0, failedResumes: 0 };
  const logs = readSessionLogs(paths);
  const current = logs.findLast((l) => l.n === session.n);
  const r = current?.result ?? null;
  // Only what the session said as it stopped: its error result, else its last lines.
  const said = r?.isError ? r.text : r ? '' : (current?.otherLines ?? []).join('\n');
  const limit = current
    ? classifyLimit(said, current.rateLimit, endedAt, -endedAt.getTimezoneOffset())
    : null;
  return {
    costUsd: summarizeUsage(logs).costUsd,
    result: r && { isError: r.isError, subtype: r.subtype, text: r.text, apiErrorStatus: r.apiErrorStatus },
    conversation: current?.sessionId ?? null,
    limit,
    authFailures: current ? authFailuresInARow(logs) : 0,
    failedResumes: current ? failedResumesInARow(logs) : 0,
  };
}

/** `panes` is only asked when the agent is not alive: a pass over healthy runs spawns nothing. */
export async function observe(
  paths: RunPaths,
  spec: RunSpec,
  panes: () => Promise<Map<string, PaneInfo>>,
  env: NodeJS.ProcessEnv,
): Promise<Observation> {
  const id = spec.id;
  const session = readSession(paths);
  const agent = readAgent(paths, session);
  const agentAlive = agent ? await isAlive(agent.pid, agent.startTime) : false;
  // Liveness before the exit record: the wrapper records the exit before it ends, so a wrapper
  // that tmux saw gone has left its record, and a session's end is never misread as a crash.
  // (A session being started, recorded before tmux runs its wrapper, still looks gone: see mayBeStarting.)
  const wrapperAlive = agentAlive || wrapperInPanes(await panes(), id);
  const exitText = session ? readText(paths.exitFile(session.n)) : null;
  const exit = exitText !== null && session ? exitRecord(paths, exitText, session.n) : null;
  return {
    sentinel: readSentinel(paths),
    paused: exists(paths.pause) || exists(rootPaths(dirname(paths.workspace)).pauseAll),
    session,
    agentAlive,
    wrapperAlive,
    exit,
    restarts: readRestarts(paths),
    reportExists: exists(paths.report),
    outputAt: mtime(paths.outputLog),
    staleSince: session ? readStaleSince(paths, session.n) : null,
    promptSeen: agentAlive ? promptAtTheEnd(paths, spec) : null,
    hung: session ? exists(paths.hungFile(session.n)) : false,
    ...endedSession(paths, agentAlive ? null : session, exit?.at ?? new Date()),
    transcriptBytes: agentAlive ? 0 : transcriptSize(paths, spec.sessionId, env),
  };
}
