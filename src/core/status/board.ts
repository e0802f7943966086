import type { LocalTime } from '../local-time.js';
import { needWords, type Need } from '../supervise/attention.js';
import { isLive } from '../supervise/live-states.js';
import { plural, safeLine } from '../text.js';
import { noPaint, paint, STATE_PAINT, type Painter } from './colour.js';
import { fitColumns, GAP, pad, truncate, wrap, type Column } from './fit.js';
import { pastEndLine, type Passes } from './live.js';
import { needCode, orderRows, summarize, summaryLine } from './needs.js';
import { ago, deniedLine, money, timeLeft, type TableRow } from './table.js';

// The morning dashboard as text: a summary line, the runs that need the person first, live runs
// saying what they are doing, finished runs that need nothing counted in one line. Pure.

export interface BoardOptions<R extends TableRow = TableRow> {
  /** The terminal's width in cells; null prints every cell whole (--wide, or not a terminal). */
  width: number | null;
  colour: boolean;
  clock: LocalTime;
  /** When passes last ran, for a live run past its end time. */
  passes?: Passes;
  /** Finished runs that need nothing and that this picks are counted, not listed. */
  collapse?: (row: R) => boolean;
  /** How to run overnight, for hints (`npx overnight` under npx). */
  cmd?: string;
}

/** `Sat 23:15` within the week, `23:15` today, `2 Nov` before. */
function startedText(iso: string | null, now: Date, clock: LocalTime): string {
  if (!iso) return '-';
  const at = new Date(iso);
  const [weekday, day, month, year] = clock.day(at);
  const [, dayNow, monthNow, yearNow] = clock.day(now);
  if (day === dayNow && month === monthNow && year === yearNow) return clock.hm(at);
  const age = (now.getTime() - at.getTime()) / 86_400_000;
  return age < 6 ? `${weekday} ${clock.hm(at)}` : `${day} ${month}`;
}

function columns(rows: readonly TableRow[], now: Date, clock: LocalTime): Column[] {
  const col = (header: string, cell: (r: TableRow) => string, more: Partial<Column> = {}): Column => ({
    header,
    cells: rows.map((r) => safeLine(cell(r))),
    ...more,
  });
  // A count that is zero in every row says nothing: its column is the first to go.
  const none = (count: (r: TableRow) => number) => rows.every((r) => count(r) === 0);
  return [
    col('RUN', (r) => r.id, { min: 24 }),
    col('STATE', (r) => (r.problem ? `${r.state}!` : r.state) + checkMark(r)),
    col('STARTED', (r) => startedText(r.startedAt ?? null, now, clock), { drop: 2 }),
    col('LEFT', (r) => timeLeft(r, now)),
    col('RESTARTS', (r) => `${r.restarts}/${r.maxRestarts ?? '?'}`, {
      drop: 3,
      empty: none((r) => r.restarts),
    }),
    col('FINDINGS', (r) => String(r.findings), { drop: 4, empty: none((r) => r.findings) }),
    col('QUESTIONS', (r) => String(r.questions), { drop: 5, empty: none((r) => r.questions) }),
    col('COST', (r) => money(r.costUsd ?? 0)),
    col('ACTIVITY', (r) => ago(r.lastOutputAt, now), { drop: 6 }),
    col('TASK', (r) => r.task ?? '', { min: 12, drop: 1 }),
  ];
}

/** Why the row needs the person, said once; null when a warning of its own says it. */
function needText(r: TableRow, need: Need): string | null {
  if (need === 'overage' || need === 'notifications') return null;
  let why = needWords(need, r.reason, r.problem, r.id);
  if (r.problem) why = `a file cannot be used: ${r.reason}`;
  else if (need === 'no-report' && !r.reason) why = 'no report';
  if (!r.problem && r.findings > 0) why += `; findings/ holds ${plural(r.findings, 'file')}`;
  return `needs you: ${why}`;
}

/** A warning that is itself the reason the row needs the person. */
const URGENT = /^(on extra usage|notifications failing)\b/;

/** What a row says under itself: why it needs the person, what it is doing now, its links. */
export function subLines<R extends TableRow>(
  r: R,
  now: Date,
  opts: BoardOptions<R>,
): { text: string; urgent: boolean }[] {
  const need = needCode(r);
  const out: { text: string; urgent: boolean }[] = [];
  const say = (text: string, urgent = false) => out.push({ text, urgent });
  const live = r.state === 'running' || r.state === 'synthesizing';
  const why = need ? needText(r, need) : null;
  if (why) say(why, true);
  else if (!need && r.reason && !live && r.state !== 'done') say(r.reason);
  for (const d of r.doing ?? []) say(d);
  const past = opts.passes ? pastEndLine(r, opts.passes, now, opts.clock, opts.cmd) : null;
  if (past) say(past, true);
  const denied = r.permissionDenials;
  if (denied && denied.count > 0) say(deniedLine(denied));
  for (const w of r.warnings ?? []) say(w, URGENT.test(w));
  if (r.continues) say(`continues ${r.continues}`);
  if (r.continuedBy) say(`continued by ${r.continuedBy}`);
  return out;
}

export function formatBoard<R extends TableRow>(
  all: readonly R[],
  now: Date,
  opts: BoardOptions<R>,
): string[] {
  const p: Painter = opts.colour ? paint : noPaint;
  const cut = (text: string) => (opts.width === null ? text : truncate(text, opts.width));
  const { rows, collapsed } = orderRows(all, opts.collapse);
  const out = [p(cut(summaryLine(summarize(all))), 'bold')];
  if (rows.length > 0) {
    const fitted = fitColumns(columns(rows, now, opts.clock), opts.width);
    const line = (cell: (c: Column) => string, painted: (c: Column, text: string) => string) =>
      fitted
        .map(({ column, width: w }, i) => {
          const text = truncate(cell(column), w);
          return painted(column, i === fitted.length - 1 ? text : pad(text, w));
        })
        .join(' '.repeat(GAP))
        .trimEnd();
    out.push(
      line(
        (c) => c.header,
        (_, text) => p(text, 'dim'),
      ),
    );
    rows.forEach((r, i) => {
      const state = (c: Column, text: string) =>
        c.header === 'STATE' ? p(text, ...STATE_PAINT[r.state]) : text;
      out.push(line((c) => c.cells[i] as string, state));
      for (const sub of subLines(r, now, opts)) {
        // What needs the person is wrapped, never cut: its end is often the fix.
        if (!sub.urgent) out.push(cut(`  └ ${safeLine(sub.text)}`));
        else {
          const lines = wrap(safeLine(sub.text), opts.width === null ? null : Math.max(20, opts.width - 4));
          lines.forEach((l, k) => out.push(p(cut(`${k === 0 ? '  └ ' : '    '}${l}`), 'red')));
        }
      }
    });
  }
  if (collapsed > 0) {
    const them = collapsed === 1 ? '1 finished run needs' : `${collapsed} finished runs need`;
    out.push(cut(`${them} nothing · ${opts.cmd ?? 'overnight'} status --all`));
  }
  return out;
}

/**
 * A finished run with a check shows overnight's verdict beside its state: ✓ verified, ✗ not (or no
 * result). A live run has no verdict yet.
 */
function checkMark(r: TableRow): string {
  if (isLive(r.state)) return '';
  const v = r.verify?.verdict;
  // Verified by its exit code alone earns no ✓: no test was counted.
  if (v === 'verified') return r.verify?.basis === 'exit-code' ? ' ?' : ' ✓';
  if (v === 'unchanged') return ' =';
  return v === 'not-verified' || v === 'error' ? ' ✗' : '';
}
