import type { LocalTime } from '../local-time.js';
import { describeEntry } from '../status/timeline-text.js';
import type { TimelineEntry } from '../status/timeline.js';
import { esc, num, oneOf } from './escape.js';
import type { DigestRun } from './types.js';

// One run's night as an inline SVG: sessions as bars coloured by how they started, waits as a
// second lane, restarts, hangs, interrupts and the finish as marks above, the end time as a
// dashed line, local clock times below. Pure; styled by the page's CSS classes; every mark has a
// <title> saying what it was. Class names come from closed sets (oneOf): a mode or an outcome
// read back from a file is never written into the markup as it is.

const MODES = ['initial', 'resume', 'continue', 'retry', 'fix', 'synthesis', 'unknown'] as const;
const ENDS = ['ok', 'error', 'limit', 'stopped', 'running', 'unknown'] as const;
const WAITS = ['limit', 'overage', 'backoff', 'other'] as const;
const INTERRUPTERS = ['end-time', 'user', 'overnight', 'unknown'] as const;
const OUTCOMES = ['done', 'failed', 'unknown'] as const;

const W = 760;
const LEFT = 8;
const RIGHT = 8;
const H = 116;
/** Marks sit on up to three rows above the bars, so marks minutes apart do not hide each other. */
const MARK_ROWS = 3;
const MARKS_Y = 36;
const MARK_ROW = 12;
const MARK_GAP = 12;
const BAR_Y = 46;
const BAR_H = 24;
const WAIT_Y = 74;
const WAIT_H = 10;
const AXIS_Y = 92;

/** Tick steps in seconds: a compressed test night and a real one both get about six ticks. */
const STEPS = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

const n1 = (x: number) => Math.round(x * 10) / 10;

export interface Span {
  from: Date;
  to: Date;
}

/** From the launch to the finish, or for a live run to its end time or now, whichever is later. */
export function spanOf(run: DigestRun, now: Date): Span {
  const first = run.timeline[0]?.at ?? run.startedAt ?? now;
  const from = run.startedAt && run.startedAt < first ? run.startedAt : first;
  const finish = run.timeline.findLast((e) => e.kind === 'finish');
  let to = finish ? finish.at : now;
  if (!finish && run.endsAt && run.endsAt > to) to = run.endsAt;
  for (const e of run.timeline) if (e.kind === 'wait' && !finish && e.until > to) to = e.until;
  if (to.getTime() - from.getTime() < 10_000) to = new Date(from.getTime() + 10_000);
  return { from, to };
}

function scale(span: Span): (at: Date) => number {
  const t0 = span.from.getTime();
  const width = span.to.getTime() - t0;
  return (at) =>
    n1(LEFT + ((Math.min(Math.max(at.getTime(), t0), t0 + width) - t0) / width) * (W - LEFT - RIGHT));
}

/** Clock ticks at most seven to the span, on round times; the step in seconds comes along. */
export function ticks(span: Span): { at: Date[]; step: number } {
  const seconds = (span.to.getTime() - span.from.getTime()) / 1000;
  // Past a week, whole days enough for seven ticks: a span of centuries is still seven ticks, not millions.
  const step = STEPS.find((s) => seconds / s <= 7) ?? Math.ceil(seconds / 7 / 86400) * 86400;
  const at: Date[] = [];
  const ms = step * 1000;
  for (let t = Math.ceil(span.from.getTime() / ms) * ms; t <= span.to.getTime(); t += ms)
    at.push(new Date(t));
  return { at, step };
}

/** Tick labels near an edge grow inwards, so none is cut off. */
const anchorAt = (x: number) => (x < LEFT + 30 ? 'start' : x > W - RIGHT - 30 ? 'end' : 'middle');
const title = (text: string) => `<title>${esc(text)}</title>`;
const rect = (cls: string, x: number, y: number, w: number, h: number, rx = 0) =>
  `<rect class="${cls}" x="${x}" y="${y}" width="${n1(w)}" height="${h}"${rx ? ` rx="${rx}"` : ''}/>`;
const line = (x1: number, y1: number, x2: number, y2: number, cls = '') =>
  `<line${cls ? ` class="${cls}"` : ''} x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`;

function sessionBars(run: DigestRun, x: (at: Date) => number, now: Date, clock: LocalTime): string[] {
  return run.timeline.flatMap((e) => {
    if (e.kind !== 'session') return [];
    const x0 = x(e.at);
    const x1 = Math.max(x0 + 2, x(e.endedAt ?? now));
    const cls = `bar s-${oneOf(e.mode, MODES, 'unknown')} end-${oneOf(e.end?.kind, ENDS, 'unknown')}`;
    const label = `${clock.hm(e.at)} ${describeEntry(e, clock)}`;
    const n = Math.trunc(num(e.session));
    const text =
      x1 - x0 > 22 ? `<text class="bar-label" x="${n1(x0 + 4)}" y="${BAR_Y + 16}">${n}</text>` : '';
    return [
      `<g class="session" data-session="${n}">${title(label)}` +
        rect(cls, x0, BAR_Y, x1 - x0, BAR_H, 3) +
        `${text}</g>`,
    ];
  });
}

function waitBars(run: DigestRun, x: (at: Date) => number, clock: LocalTime): string[] {
  return run.timeline.flatMap((e) => {
    if (e.kind !== 'wait') return [];
    const x0 = x(e.at);
    const x1 = Math.max(x0 + 2, x(e.until));
    return [
      `<g class="wait">${title(`${clock.hm(e.at)} ${describeEntry(e, clock)}`)}` +
        `${rect(`w-${oneOf(e.for, WAITS, 'other')}`, x0, WAIT_Y, x1 - x0, WAIT_H, 2)}</g>`,
    ];
  });
}

const isMark = (e: TimelineEntry) =>
  (e.kind === 'session' && e.mode === 'resume') ||
  e.kind === 'hang' ||
  e.kind === 'interrupt' ||
  e.kind === 'finish';

/** The row of each mark: the lowest one with no mark too close, else the top one. */
function markRows(xs: readonly number[]): number[] {
  const placed: number[][] = Array.from({ length: MARK_ROWS }, () => []);
  return xs.map((x) => {
    const row = placed.findIndex((r) => r.every((p) => Math.abs(p - x) >= MARK_GAP));
    const at = row === -1 ? MARK_ROWS - 1 : row;
    (placed[at] as number[]).push(x);
    return at;
  });
}

/** A small mark above the bars: a restart, a hang, an interrupt, the finish. */
function mark(e: TimelineEntry, cx: number, y: number, clock: LocalTime): string {
  const t = title(`${clock.hm(e.at)} ${describeEntry(e, clock)}`);
  switch (e.kind) {
    case 'hang': {
      const cls = e.stage === 'watched' ? 'm-silent' : 'm-hung';
      const d = `M${cx} ${y - 6}L${n1(cx + 6)} ${y + 5}H${n1(cx - 6)}Z`;
      return `<g class="mark ${cls}">${t}<path d="${d}"/></g>`;
    }
    case 'interrupt': {
      const by = oneOf(e.by, INTERRUPTERS, 'unknown');
      return `<g class="mark m-${by}">${t}${rect('', n1(cx - 4), y - 4, 8, 8)}</g>`;
    }
    case 'finish':
      return (
        `<g class="mark m-finish m-${oneOf(String(e.outcome).toLowerCase(), OUTCOMES, 'unknown')}">${t}` +
        `${line(cx, y, cx, WAIT_Y + WAIT_H)}<circle cx="${cx}" cy="${y}" r="6"/></g>`
      );
    default:
      return `<g class="mark m-restart">${t}<circle cx="${cx}" cy="${y}" r="5"/></g>`;
  }
}

export function timelineSvg(run: DigestRun, now: Date, clock: LocalTime): string {
  const span = spanOf(run, now);
  const x = scale(span);
  const parts: string[] = [];
  const { at: tickTimes, step } = ticks(span);
  const tickText = step < 60 ? clock.hms : clock.hm;
  for (const t of tickTimes) {
    const tx = x(t);
    const label = `x="${tx}" y="${AXIS_Y + 14}" text-anchor="${anchorAt(tx)}"`;
    parts.push(
      line(tx, BAR_Y - 4, tx, AXIS_Y, 'tick') +
        `<text class="tick-label" ${label}>${esc(tickText(t))}</text>`,
    );
  }
  parts.push(line(LEFT, AXIS_Y, W - RIGHT, AXIS_Y, 'axis'));
  if (run.endsAt && run.endsAt >= span.from && run.endsAt <= span.to) {
    const ex = x(run.endsAt);
    parts.push(
      `<g class="ends">${title(`end time ${clock.hm(run.endsAt)}: exploring stops, the synthesis begins`)}` +
        `${line(ex, MARKS_Y - MARK_ROW - 8, ex, AXIS_Y)}</g>`,
    );
  }
  parts.push(...sessionBars(run, x, now, clock), ...waitBars(run, x, clock));
  if (!run.timeline.some((e) => e.kind === 'finish') && now <= span.to)
    parts.push(
      `<g class="now">${title(`now, ${clock.hm(now)}`)}${line(x(now), BAR_Y - 4, x(now), AXIS_Y)}</g>`,
    );
  const marks = run.timeline.filter(isMark);
  const rows = markRows(marks.map((e) => x(e.at)));
  marks.forEach((e, i) => parts.push(mark(e, x(e.at), MARKS_Y - (rows[i] ?? 0) * MARK_ROW, clock)));
  // Mark rows nobody used are not left as a blank band above the bars.
  const shift = (MARK_ROWS - 1 - Math.max(0, ...rows)) * MARK_ROW;
  const sessions = run.timeline.filter((e) => e.kind === 'session').length;
  const label =
    `the night of ${run.id}: ${sessions} session${sessions === 1 ? '' : 's'}, ` +
    `${clock.hm(span.from)} to ${clock.hm(span.to)}`;
  return (
    `<svg class="timeline" viewBox="0 ${shift} ${W} ${H - shift}" role="img" aria-label="${esc(label)}">` +
    `${parts.join('')}</svg>`
  );
}
