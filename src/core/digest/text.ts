import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import { money } from '../status/table.js';
import { timelineLines } from '../status/timeline-text.js';
import { oneLine, plural, safeLine } from '../text.js';
import { digestNeed, openQuestions, orderRuns, summarize, type DigestSummary } from './summary.js';
import type { Digest, DigestRun } from './types.js';

// The morning digest as text for a terminal. Pure. Text from the agent, the task or files is
// flattened to one line and cut (oneLine), and every line printed goes through safeLine: no control
// sequence reaches the terminal.

const MARK: Record<string, string> = {
  done: '✓',
  failed: '✗',
  running: '▶',
  synthesizing: '▶',
  waiting: '…',
  paused: '‖',
};

/** `3 runs: 1 done, 1 failed, 1 live · 1 needs you · 4 open questions · $1.23 spent` */
export function summaryLine(s: DigestSummary): string {
  const states = [
    s.done ? `${s.done} done` : '',
    s.failed ? `${s.failed} failed` : '',
    s.live ? `${s.live} still going` : '',
  ].filter(Boolean);
  return [
    `${plural(s.runs, 'run')}${states.length ? `: ${states.join(', ')}` : ''}`,
    s.needsYou === 0 ? 'nothing needs you' : `${s.needsYou} need${s.needsYou === 1 ? 's' : ''} you`,
    plural(s.openQuestions, 'open question'),
    `${money(s.costUsd)} spent`,
  ].join(' · ');
}

/** How long the run has gone on: to its finish, or to now while it is live. */
export function runSeconds(run: DigestRun, now: Date): number | null {
  const finish = run.timeline.findLast((e) => e.kind === 'finish');
  if (finish?.kind === 'finish') return finish.totalSeconds;
  if (!run.startedAt) return null;
  return Math.max(0, Math.round((now.getTime() - run.startedAt.getTime()) / 1000));
}

/** `$0.45 · 7h58m · 1 restart of 5 · 3 findings` */
export function runFacts(run: DigestRun, now: Date): string {
  const seconds = runSeconds(run, now);
  const restarts = `${run.restarts} restart${run.restarts === 1 ? '' : 's'} of ${run.maxRestarts ?? '?'}`;
  const findings = `${run.findings} finding${run.findings === 1 ? '' : 's'}`;
  return [money(run.costUsd), seconds === null ? null : formatDuration(seconds), restarts, findings]
    .filter((x) => x !== null)
    .join(' · ');
}

/** `continues A · continued by C`: how the run links to the nights before and after it. */
export function nightsLine(run: Pick<DigestRun, 'continues' | 'continuedBy'>): string | null {
  const parts = [
    run.continues ? `continues ${run.continues}` : null,
    run.continuedBy ? `continued by ${run.continuedBy}` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : null;
}

function runLines(run: DigestRun, now: Date, clock: LocalTime): string[] {
  const out = [`${MARK[run.state] ?? '?'} ${run.state.toUpperCase()}  ${run.id}  ·  ${runFacts(run, now)}`];
  out.push(`  task:       ${oneLine(run.task ?? '(unknown)', 200)}`);
  const nights = nightsLine(run);
  if (nights) out.push(`  nights:     ${nights}`);
  const needs = digestNeed(run);
  if (needs) out.push(`  needs you:  ${oneLine(needs, 300)}`);
  else if (run.reason) out.push(`  outcome:    ${oneLine(run.reason, 300)}`);
  if (run.verify?.line) out.push(`  check:      ${oneLine(run.verify.line, 300)}`);
  if (run.verify?.tests) out.push(`  tests:      ${oneLine(run.verify.tests, 300)}`);
  if (run.review) out.push(`  review:     ${oneLine(run.review.line, 300)}`);
  if (run.report) {
    out.push(`  report:     ${run.report.path}`);
    for (const line of run.report.head) out.push(`    │ ${oneLine(line, 96)}`);
  }
  const open = run.questions.filter((q) => !q.answered).length;
  if (open > 0) out.push(`  questions:  ${open} open, in ${run.workspace}/questions.md`);
  for (const w of run.warnings ?? []) out.push(`  warning:    ${oneLine(w, 300)}`);
  if (run.timeline.length > 0) {
    out.push('  the night:');
    for (const line of timelineLines(run.timeline, clock)) out.push(`    ${line}`);
  }
  return out;
}

export function digestText(d: Digest, clock: LocalTime): string[] {
  const out = [`overnight digest · ${d.window} · ${clock.human(d.now)}`];
  if (d.runs.length === 0) return [...out, `No run ended or changed in ${d.window}.`];
  out.push(summaryLine(summarize(d.runs)));
  for (const run of orderRuns(d.runs)) out.push('', ...runLines(run, d.now, clock));
  const questions = openQuestions(d.runs);
  if (questions.length > 0) {
    out.push('', `Open questions, highest priority first (${questions.length})`);
    for (const q of questions) {
      out.push(`  ${q.priority.padEnd(8)} ${oneLine(q.title, 200)}`);
      const guess = q.bestGuess ? `best guess: ${oneLine(q.bestGuess, 160)} · ` : '';
      out.push(`           ${guess}${q.run}`);
    }
    out.push('', 'To answer one, add a line "Answer: ..." under it in its run\'s questions.md.');
  }
  return out.map(safeLine);
}
