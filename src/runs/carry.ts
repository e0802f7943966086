import { constants, copyFileSync, mkdirSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { present } from '../adapters/files.js';
import { directoryInside, readInside, regularInside } from '../adapters/inside.js';
import { readSessionLogs } from '../adapters/store.js';
import { findTranscript } from '../adapters/transcript.js';
import { parseQuestions, QUESTIONS_MAX_BYTES } from '../core/agent/questions.js';
import type { AnsweredQuestion } from '../core/run/continuation.js';
import { agentCwd, type RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { lastWords } from '../core/supervise/next-session.js';
import { countFindings } from '../read/rows.js';

// What a finished run leaves for the night after: its questions and the person's answers, its
// findings and report, its last words, and whether its conversation can be resumed. Read only:
// the earlier run is never changed. Only regular files inside the earlier run are read or copied:
// a link the agent made (to a file outside, or anywhere) is skipped and named, never followed.

export interface Left {
  questions: string | null;
  answered: AnsweredQuestion[];
  open: number;
  findings: number;
  report: boolean;
  lastWords: string | null;
  /** The earlier conversation's running cost, where a fork of it starts counting. */
  costUsd: number;
  /** Files of the run's that are links or not regular files, relative to the run: not carried. */
  skipped: string[];
  /** The regular files of findings/ to carry, relative to it. */
  findingFiles: string[];
}

export function whatWasLeft(paths: RunPaths, spec: RunSpec): Left {
  const skipped: string[] = [];
  // Bounded like every read of the agent's files: a larger questions.md is carried in part, said so.
  const read = readInside(paths.workspace, paths.questions, QUESTIONS_MAX_BYTES);
  if (read === null && present(paths.questions)) skipped.push('questions.md');
  const questions =
    read === null || read.whole
      ? (read?.text ?? null)
      : `${read.text}\n\n(overnight: questions.md was larger than ${QUESTIONS_MAX_BYTES / 1024 / 1024} MB; ` +
        `the rest is in ${paths.questions})\n`;
  const report = regularInside(paths.workspace, paths.report);
  if (!report && present(paths.report)) skipped.push('REPORT.md');
  const findingFiles: string[] = [];
  if (directoryInside(paths.workspace, paths.findings))
    walk(paths.workspace, paths.findings, '', findingFiles, skipped);
  else if (present(paths.findings)) skipped.push('findings');
  const all = parseQuestions(read?.text ?? '');
  const answered = all.flatMap((q) => (q.answered && q.answer ? [{ title: q.title, answer: q.answer }] : []));
  let logs: ReturnType<typeof readSessionLogs> = [];
  try {
    logs = readSessionLogs(paths);
  } catch {
    // an unreadable output.log: no last words, no cost to carry
  }
  const last = logs.findLast((s) => s.result?.sessionId === spec.sessionId)?.result;
  return {
    questions,
    answered,
    open: all.filter((q) => !q.answered).length,
    findings: countFindings(paths.findings),
    report,
    lastWords: lastWords(logs),
    costUsd: last?.costUsd ?? 0,
    skipped,
    findingFiles,
  };
}

/** The regular files below `dir` (into `files`, relative to findings/), and what is not (`skipped`). */
function walk(run: string, dir: string, rel: string, files: string[], skipped: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const at = join(dir, e.name);
    const name = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory() && directoryInside(run, at)) walk(run, at, name, files, skipped);
    else if (e.isFile() && regularInside(run, at)) files.push(name);
    else skipped.push(`findings/${name}`);
  }
}

/**
 * Copies one regular file of the earlier run (bytes as they are), its time kept; false when it is
 * no longer one. The earlier run is finished: no agent changes it meanwhile.
 */
function copyRegular(run: string, from: string, to: string): boolean {
  if (!regularInside(run, from)) return false;
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  copyFileSync(from, to, constants.COPYFILE_EXCL);
  try {
    const st = statSync(from);
    utimesSync(to, st.atime, st.mtime);
  } catch {
    // the copy stands without its time
  }
  return true;
}

/**
 * Copies of what the next night starts from: findings/' regular files, the report as
 * previous/REPORT.md. Links are not recreated and their targets not copied.
 */
export function copyLeft(
  from: RunPaths,
  left: Pick<Left, 'findingFiles' | 'report'>,
  to: { findings: string; previousReport: string },
): void {
  for (const f of left.findingFiles)
    copyRegular(from.workspace, join(from.findings, f), join(to.findings, f));
  if (left.report) copyRegular(from.workspace, from.report, to.previousReport);
}

/**
 * The earlier conversation, when a fork of it can work: its transcript is where the CLI looks (the
 * config dir the follow-up's agent will have) and not too large to load. Otherwise, why not.
 */
export function resumable(
  paths: RunPaths,
  spec: RunSpec,
  configDir: string,
  maxBytes: number,
): { fork: string } | { why: string } {
  const found = findTranscript(configDir, agentCwd(spec, paths), spec.sessionId);
  if (!found) return { why: `its transcript (${spec.sessionId}) is not in ${configDir}` };
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
  if (found.bytes > maxBytes)
    return { why: `its transcript is ${mb(found.bytes)}, over max_transcript (${mb(maxBytes)})` };
  return { fork: spec.sessionId };
}
