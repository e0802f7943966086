import type { Question } from '../agent/questions.js';
import type { LocalTime } from '../local-time.js';
import { taskHasMore } from '../run/task.js';
import { hasAgent } from '../supervise/live-states.js';
import { headline, plural, safeLine } from '../text.js';
import { findingLines, finishLine, questionLines, type FindingFile } from './story-text.js';
import { ago, deniedLine, money, timeLeft, type TableRow } from './table.js';
import type { TimelineEntry } from './timeline-types.js';

// `overnight status <run>`: one run, said for a person reading it in the morning.

/** A run's row with what says where it is and when it began (StatusRow extends it). */
export interface DetailsRow extends TableRow {
  task: string | null;
  /** The task says more than the first line in `task`: the whole of it is in CLAUDE.md. */
  taskMore?: boolean;
  workspace: string;
  session: string;
  startedAt: string | null;
  sessions?: number;
  tokens?: { input: number; output: number };
  /** How its sessions run (tmux, detached); absent in summaries written before backends. */
  backend?: string;
  /** The current session's batch job, on the slurm backend (as Slurm last listed it). */
  job?: { id: number; node: string | null; state: string; restarts: number };
  /** How to watch the agent: the command that attaches to its tmux session, or follows its log. */
  watch?: string;
  /** How much of the subscription's 5-hour and weekly windows is used, when the stream said. */
  usageWindows?: {
    fiveHour?: { utilization: number; resetsAt: string | null };
    sevenDay?: { utilization: number; resetsAt: string | null };
  };
}

/** `4242 on node7, RUNNING, requeued 1 time`: Slurm's words, made safe for a terminal. */
function jobLine(j: NonNullable<DetailsRow['job']>): string {
  const where = j.node ? ` on ${safeLine(j.node)}` : '';
  const again = j.restarts > 0 ? `, requeued ${plural(j.restarts, 'time')}` : '';
  return `${j.id}${where}, ${safeLine(j.state)}${again}`;
}

/** `5-hour window 92 % used (resets 04:00), weekly 31 % used (resets Mon 24 Nov 2026, 09:00 …)`. */
function windowsLine(w: NonNullable<DetailsRow['usageWindows']>, clock: LocalTime): string {
  const one = (
    name: string,
    x: { utilization: number; resetsAt: string | null },
    when: (d: Date) => string,
  ) =>
    `${name} ${Math.round(x.utilization * 100)} % used` +
    (x.resetsAt ? ` (resets ${when(new Date(x.resetsAt))})` : '');
  return [
    w.fiveHour ? one('5-hour window', w.fiveHour, clock.hm) : null,
    w.sevenDay ? one('weekly', w.sevenDay, clock.human) : null,
  ]
    .filter(Boolean)
    .join(', ');
}

/** What the workspace holds that the person should open next, and the night's story. */
export interface DetailsFiles {
  report: boolean;
  /** The newest files of findings/ (status <run> lists them). */
  newest?: FindingFile[];
  story?: { timeline: TimelineEntry[]; questions: Question[] };
}

/** The task's first line; when it says more, "…" and where the whole of it is. */
function taskLine(r: DetailsRow): string {
  if (r.task === null) return '(unknown)';
  const head = headline(r.task);
  if (!r.taskMore && !taskHasMore(r.task)) return head;
  return `${head}${head.endsWith('…') ? '' : ' …'} (the whole task is in ${r.workspace}/CLAUDE.md)`;
}

export function runDetails(r: DetailsRow, files: DetailsFiles, now: Date, clock: LocalTime): string[] {
  const when = (iso: string | null) => (iso ? clock.human(new Date(iso)) : '?');
  const left = timeLeft(r, now);
  const ws = r.workspace;
  const count = (n: number) => n.toLocaleString('en-US');
  const spent = r.tokens
    ? `, ${money(r.costUsd ?? 0)} (${count(r.tokens.input)} tokens in, ${count(r.tokens.output)} out)`
    : '';
  const remaining = left === '-' ? '' : left === 'ended' ? ' (time is up)' : ` (${left} left)`;
  const restarts = `${plural(r.restarts, 'restart')} of ${r.maxRestarts ?? '?'} allowed`;
  const lines = [
    '',
    `task:       ${taskLine(r)}`,
    `workspace:  ${ws}`,
    `started:    ${when(r.startedAt)}`,
    `ends:       ${when(r.endsAt)}${remaining}`,
  ];
  const finished = files.story ? finishLine(files.story.timeline, clock) : null;
  if (finished) lines.push(finished);
  lines.push(
    `activity:   ${ago(r.lastOutputAt, now)}`,
    `sessions:   ${r.sessions ?? '?'}, ${restarts}${spent}`,
  );
  if (r.backend) lines.push(`backend:    ${r.backend}`);
  if (r.job) lines.push(`slurm job:  ${jobLine(r.job)}`);
  if (files.report) lines.push(`report:     ${ws}/REPORT.md`);
  if (files.story) lines.push(...questionLines(files.story.questions, `${ws}/questions.md`));
  else if (r.questions > 0)
    lines.push(`questions:  ${plural(r.questions, 'open question')} for you in ${ws}/questions.md`);
  if (files.newest) lines.push(...findingLines(r.findings, files.newest, `${ws}/findings/`, clock));
  else if (r.findings > 0) lines.push(`findings:   ${plural(r.findings, 'file')} in ${ws}/findings/`);
  // A tmux session to attach to exists while an agent runs, not while a run waits or is paused.
  if (hasAgent(r.state)) lines.push(`watch:      ${r.watch ?? `tmux attach -t ${r.session}`}`);
  if (r.reason) lines.push(`reason:     ${r.reason}`);
  if (r.continues) lines.push(`continues:  ${r.continues}`);
  if (r.continuedBy) lines.push(`next night: continued by ${r.continuedBy}`);
  if (r.usageWindows) lines.push(`limits:     ${windowsLine(r.usageWindows, clock)}`);
  if (r.permissionDenials && r.permissionDenials.count > 0)
    lines.push(`denied:     ${deniedLine(r.permissionDenials)}`);
  for (const w of r.warnings ?? []) lines.push(`warning:    ${w.text}`);
  // The task, reasons and warnings quote the person, the agent and files: nothing is obeyed.
  return lines.map(safeLine);
}
