import type { Question } from '../agent/questions.js';
import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import { timelineLines } from './timeline-text.js';
import type { TimelineEntry } from './timeline-types.js';

// `status <run>`, below the facts: the night as a story, the questions waiting for the person and
// the newest findings. Pure: the story and the file list in, lines out.

export interface FindingFile {
  /** Relative to findings/. */
  path: string;
  modifiedAt: Date;
}

const INDENT = ' '.repeat(12);
/** The questions and files listed; the rest are counted. */
const SHOWN = 5;

/** `finished: Sun 23 Nov 2026, 07:12 (UTC+01:00), after 7h57m`, once the run is over. */
export function finishLine(timeline: readonly TimelineEntry[], clock: LocalTime): string | null {
  const end = timeline.findLast((e) => e.kind === 'finish');
  if (end?.kind !== 'finish') return null;
  return `finished:   ${clock.human(end.at)}, after ${formatDuration(end.totalSeconds)}`;
}

/** The timeline, one entry a line under a heading; nothing when there is nothing yet. */
export function timelineBlock(timeline: readonly TimelineEntry[], clock: LocalTime): string[] {
  if (timeline.length === 0) return [];
  return ['', 'the night:', ...timelineLines(timeline, clock).map((l) => `  ${l}`)];
}

/** Open questions, highest priority first (the story's order), with how many were answered. */
export function questionLines(questions: readonly Question[], file: string): string[] {
  const open = questions.filter((q) => !q.answered);
  if (open.length === 0) return [];
  const answered = questions.length - open.length;
  const head = `${open.length} open ${open.length === 1 ? 'question' : 'questions'} in ${file}`;
  const lines = [`questions:  ${head}${answered > 0 ? ` (${answered} answered)` : ''}`];
  for (const q of open.slice(0, SHOWN)) lines.push(`${INDENT}[${q.priority}] ${q.title}`);
  if (open.length > SHOWN) lines.push(`${INDENT}… and ${open.length - SHOWN} more`);
  return lines;
}

/** `findings:   7 files in …/findings/`, the newest first with when they last changed. */
export function findingLines(
  count: number,
  newest: readonly FindingFile[],
  dir: string,
  clock: LocalTime,
): string[] {
  if (count === 0) return [];
  const lines = [`findings:   ${count} ${count === 1 ? 'file' : 'files'} in ${dir}, the newest:`];
  for (const f of newest.slice(0, SHOWN)) lines.push(`${INDENT}${f.path} (${clock.hm(f.modifiedAt)})`);
  return lines;
}
