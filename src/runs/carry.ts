import { cpSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import { exists, readText } from '../adapters/files.js';
import { readSessionLogs } from '../adapters/store.js';
import { findTranscript } from '../adapters/transcript.js';
import { parseQuestions, QUESTIONS_MAX_BYTES } from '../core/agent/questions.js';
import type { AnsweredQuestion } from '../core/run/continuation.js';
import { agentCwd, type RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { lastWords } from '../core/supervise/next-session.js';
import { countFindings } from '../dashboard/rows.js';

// What a finished run leaves for the night after: its questions and the person's answers, its
// findings and report, its last words, and whether its conversation can be resumed. Read only:
// the earlier run is never changed.

export interface Left {
  questions: string | null;
  answered: AnsweredQuestion[];
  open: number;
  findings: number;
  report: boolean;
  lastWords: string | null;
  /** The earlier conversation's running cost, where a fork of it starts counting. */
  costUsd: number;
}

export function whatWasLeft(paths: RunPaths, spec: RunSpec): Left {
  const questions = readText(paths.questions);
  const all = parseQuestions((questions ?? '').slice(0, QUESTIONS_MAX_BYTES));
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
    report: exists(paths.report),
    lastWords: lastWords(logs),
    costUsd: last?.costUsd ?? 0,
  };
}

/** Copies of what the next night starts from: findings/ whole, the report as previous/REPORT.md. */
export function copyLeft(from: RunPaths, to: { findings: string; previousReport: string }): void {
  if (exists(from.findings))
    cpSync(from.findings, to.findings, { recursive: true, preserveTimestamps: true });
  if (exists(from.report)) {
    mkdirSync(dirname(to.previousReport), { recursive: true, mode: 0o700 });
    cpSync(from.report, to.previousReport, { preserveTimestamps: true });
  }
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
