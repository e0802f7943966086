import { rankQuestions, type Question } from '../agent/questions.js';
import { attention, needWords } from '../supervise/attention.js';
import { causeOf } from '../supervise/legacy-cause.js';
import { isLive } from '../supervise/live-states.js';
import type { DigestRun } from './types.js';

// What the digest says first: how many runs, how they ended, which need the person. Pure.

export interface DigestSummary {
  runs: number;
  done: number;
  failed: number;
  /** Running, waiting, synthesizing or paused. */
  live: number;
  needsYou: number;
  openQuestions: number;
  costUsd: number;
}

/** Why a run needs the person, in a few words, or null when it does not (attention() decides). */
export function digestNeed(run: DigestRun): string | null {
  const found = attention(causeOf(run), {
    state: run.state,
    report: run.report !== null,
    ...(run.problem ? { problem: run.problem } : {}),
    ...(run.onOverage ? { onOverage: true } : {}),
    ...(run.notifyFailing ? { notifyFailing: true } : {}),
    ...(['not-verified', 'error', 'unchanged'].includes(run.verify?.verdict ?? '') ||
    run.review?.verdict === 'reject'
      ? { checkFailed: true }
      : {}),
  });
  return found ? needWords(found.need, run.reason, run.problem, run.id) : null;
}

export function summarize(runs: readonly DigestRun[]): DigestSummary {
  const cents = runs.reduce((sum, r) => sum + Math.round(r.costUsd * 1e6), 0);
  return {
    runs: runs.length,
    done: runs.filter((r) => r.state === 'done').length,
    failed: runs.filter((r) => r.state === 'failed').length,
    live: runs.filter((r) => isLive(r.state)).length,
    needsYou: runs.filter((r) => digestNeed(r) !== null).length,
    openQuestions: runs.reduce((n, r) => n + r.questions.filter((q) => !q.answered).length, 0),
    costUsd: cents / 1e6,
  };
}

/** Runs that need the person first, then live ones, then the rest; each group by start time. */
export function orderRuns(runs: readonly DigestRun[]): DigestRun[] {
  const group = (r: DigestRun) => (digestNeed(r) ? 0 : isLive(r.state) ? 1 : 2);
  const start = (r: DigestRun) => r.startedAt?.getTime() ?? 0;
  return [...runs].sort((a, b) => group(a) - group(b) || start(a) - start(b) || a.id.localeCompare(b.id));
}

export interface RunQuestion extends Question {
  run: string;
}

/** The open questions of every run, highest priority first (run order, then file order, among equals). */
export function openQuestions(runs: readonly DigestRun[]): RunQuestion[] {
  const all = runs.flatMap((r) => r.questions.filter((q) => !q.answered).map((q) => ({ ...q, run: r.id })));
  return rankQuestions(all);
}
