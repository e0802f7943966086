import type { LocalTime } from '../local-time.js';
import { describeEntry } from '../status/timeline-text.js';
import type { TimelineEntry } from '../status/timeline.js';
import { esc } from './escape.js';
import type { DigestRun } from './types.js';

// One run's night as an inline SVG: sessions as bars coloured by how they started, waits as a
// second lane, restarts, hangs, interrupts and the finish as marks above, the end time as a
// dashed line, local clock times below. Pure; styled by the page's CSS classes; every mark has a
// <title> saying what it was.

const W = 760;
const LEFT = 4;
const RIGHT = 4;
const H = 92;
const MARKS_Y = 12;
const BAR_Y = 22;
const BAR_H = 24;
const WAIT_Y = 50;
const WAIT_H = 10;
const AXIS_Y = 68;

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
  const step = STEPS.find((s) => seconds / s <= 7) ?? 86400;
  const at: Date[] = [];
  const ms = step * 1000;
  for (let t = Math.ceil(span.from.getTime() / ms) * ms; t <= span.to.getTime(); t += ms)
    at.push(new Date(t));
  return { at, step };
}

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
    const cls = `bar s-${e.mode} end-${e.end.kind}`;
    const label = `${clock.hm(e.at)} ${describeEntry(e, clock)}`;
    const text =
      x1 - x0 > 22 ? `<text class="bar-label" x="${n1(x0 + 4)}" y="${BAR_Y + 16}">${e.session}</text>` : '';
    return [
      `<g class="session" data-session="${e.session}">${title(label)}` +
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
        `${rect(`w-${e.for}`, x0, WAIT_Y, x1 - x0, WAIT_H, 2)}</g>`,
    ];
  });
}

/** A small mark above the bars: a restart, a hang, an interrupt, the finish. */
function mark(e: TimelineEntry, cx: number, clock: LocalTime): string | null {
  const t = title(`${clock.hm(e.at)} ${describeEntry(e, clock)}`);
  switch (e.kind) {
    case 'session':
      return e.mode === 'resume'
        ? `<g class="mark m-restart">${t}<circle cx="${cx}" cy="${MARKS_Y}" r="5"/></g>`
        : null;
    case 'hang': {
      const cls = e.stage === 'watched' ? 'm-silent' : 'm-hung';
      const y = MARKS_Y;
      const d = `M${cx} ${y - 6}L${n1(cx + 6)} ${y + 5}H${n1(cx - 6)}Z`;
      return `<g class="mark ${cls}">${t}<path d="${d}"/></g>`;
    }
    case 'interrupt':
      return `<g class="mark m-${e.by}">${t}${rect('', n1(cx - 4), MARKS_Y - 4, 8, 8)}</g>`;
    case 'finish':
      return (
        `<g class="mark m-finish m-${e.outcome.toLowerCase()}">${t}` +
        `<line x1="${cx}" y1="${MARKS_Y - 6}" x2="${cx}" y2="${WAIT_Y + WAIT_H}"/>` +
        `<circle cx="${cx}" cy="${MARKS_Y}" r="6"/></g>`
      );
    default:
      return null;
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
    parts.push(
      `<line class="tick" x1="${tx}" y1="${BAR_Y - 4}" x2="${tx}" y2="${AXIS_Y}"/>` +
        `<text class="tick-label" x="${tx}" y="${AXIS_Y + 14}" text-anchor="middle">${tickText(t)}</text>`,
    );
  }
  parts.push(`<line class="axis" x1="${LEFT}" y1="${AXIS_Y}" x2="${W - RIGHT}" y2="${AXIS_Y}"/>`);
  if (run.endsAt && run.endsAt >= span.from && run.endsAt <= span.to) {
    const ex = x(run.endsAt);
    parts.push(
      `<g class="ends">${title(`end time ${clock.hm(run.endsAt)}: exploring stops, the synthesis begins`)}` +
        `<line x1="${ex}" y1="${MARKS_Y - 8}" x2="${ex}" y2="${AXIS_Y}"/></g>`,
    );
  }
  parts.push(...sessionBars(run, x, now, clock), ...waitBars(run, x, clock));
  if (!run.timeline.some((e) => e.kind === 'finish') && now <= span.to)
    parts.push(
      `<g class="now">${title(`now, ${clock.hm(now)}`)}${line(x(now), BAR_Y - 4, x(now), AXIS_Y)}</g>`,
    );
  for (const e of run.timeline) {
    const m = mark(e, x(e.at), clock);
    if (m) parts.push(m);
  }
  const sessions = run.timeline.filter((e) => e.kind === 'session').length;
  const label =
    `the night of ${run.id}: ${sessions} session${sessions === 1 ? '' : 's'}, ` +
    `${clock.hm(span.from)} to ${clock.hm(span.to)}`;
  return (
    `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(label)}">` +
    `${parts.join('')}</svg>`
  );
}
