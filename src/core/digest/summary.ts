import { rankQuestions, type Question } from '../agent/questions.js';
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

const LIVE = new Set(['running', 'waiting', 'verifying', 'synthesizing', 'paused']);

/** Why a run needs the person, in a few words, or null when it does not. */
export function needsYou(run: DigestRun): string | null {
  if (run.problem) return `a file cannot be used: ${run.problem}`;
  if (run.state === 'failed') return run.reason || 'failed';
  if (run.state === 'done' && !run.report && !/stopped by user/.test(run.reason))
    return /^no report/.test(run.reason) ? run.reason : `no report (${run.reason || 'done'})`;
  const wait = run.timeline.findLast((e) => e.kind === 'wait');
  if (run.state === 'waiting' && wait?.kind === 'wait' && wait.for === 'overage')
    return 'on paid extra usage';
  return null;
}

export function summarize(runs: readonly DigestRun[]): DigestSummary {
  const cents = runs.reduce((sum, r) => sum + Math.round(r.costUsd * 1e6), 0);
  return {
    runs: runs.length,
    done: runs.filter((r) => r.state === 'done').length,
    failed: runs.filter((r) => r.state === 'failed').length,
    live: runs.filter((r) => LIVE.has(r.state)).length,
    needsYou: runs.filter((r) => needsYou(r) !== null).length,
    openQuestions: runs.reduce((n, r) => n + r.questions.filter((q) => !q.answered).length, 0),
    costUsd: cents / 1e6,
  };
}

/** Runs that need the person first, then live ones, then the rest; each group by start time. */
export function orderRuns(runs: readonly DigestRun[]): DigestRun[] {
  const group = (r: DigestRun) => (needsYou(r) ? 0 : LIVE.has(r.state) ? 1 : 2);
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
