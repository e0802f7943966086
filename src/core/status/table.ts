import { formatDuration } from '../config/duration.js';
import type { RunState } from '../run/types.js';
import { safeLine } from '../text.js';

// The morning dashboard as text. Pure: rows and `now` in, lines out.

export interface TableRow {
  id: string;
  state: RunState;
  endsAt: string | null;
  restarts: number;
  maxRestarts: number | null;
  findings: number;
  questions: number;
  lastOutputAt: string | null;
  reason: string;
  costUsd?: number;
  permissionDenials?: { count: number; tools: { name: string; count: number }[] };
  /** A file of the run that could not be used; the run is skipped by reconcile until fixed. */
  problem?: string;
  /** Things the user should know even while the run goes on. */
  warnings?: string[];
  /** The run this one follows up (`overnight continue`), and the one that follows it up. */
  continues?: string;
  continuedBy?: string;
}

const FINISHED: readonly RunState[] = ['done', 'failed'];

export function timeLeft(row: TableRow, now: Date): string {
  if (FINISHED.includes(row.state) || !row.endsAt) return '-';
  const left = (new Date(row.endsAt).getTime() - now.getTime()) / 1000;
  return left > 0 ? formatDuration(left) : 'ended';
}

/** `$1.25`; a cost below a cent is shown as such, not as nothing. */
export function money(usd: number): string {
  return usd > 0 && usd < 0.005 ? '<$0.01' : `$${usd.toFixed(2)}`;
}

export function ago(at: Date | string | null, now: Date): string {
  if (!at) return 'never';
  const seconds = (now.getTime() - new Date(at).getTime()) / 1000;
  return seconds < 1 ? 'just now' : `${formatDuration(seconds)} ago`;
}

/**
 * Aligned columns, and under each run that needs a look a line saying why. Reasons and warnings
 * quote the agent and the run's files: every line is made safe for a terminal.
 */
export function formatTable(rows: readonly TableRow[], now: Date): string[] {
  const header = ['RUN', 'STATE', 'LEFT', 'RESTARTS', 'FINDINGS', 'QUESTIONS', 'COST', 'LAST ACTIVITY'];
  const cells = rows.map((r) => [
    r.id,
    r.problem ? `${r.state}!` : r.state,
    timeLeft(r, now),
    `${r.restarts}/${r.maxRestarts ?? '?'}`,
    String(r.findings),
    String(r.questions),
    money(r.costUsd ?? 0),
    ago(r.lastOutputAt, now),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) =>
    c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i] as number))).join('  ');
  const out = [line(header)];
  rows.forEach((r, i) => {
    out.push(line(cells[i] as string[]));
    if (r.reason && (r.problem || (r.state !== 'running' && r.state !== 'synthesizing')))
      out.push(`  └ ${r.reason}`);
    const denied = r.permissionDenials;
    if (denied && denied.count > 0) out.push(`  └ ${deniedLine(denied)}`);
    for (const w of r.warnings ?? []) out.push(`  └ ${w}`);
    if (r.continues) out.push(`  └ continues ${r.continues}`);
    if (r.continuedBy) out.push(`  └ continued by ${r.continuedBy}`);
  });
  return out.map(safeLine);
}

/** A run whose agent keeps being refused achieves nothing quietly: say so, and which tools. */
export function deniedLine(denied: { count: number; tools: { name: string; count: number }[] }): string {
  const top = denied.tools
    .slice(0, 3)
    .map((t) => `${t.name} ${t.count}`)
    .join(', ');
  const s = denied.count === 1 ? '' : 's';
  return (
    `${denied.count} tool call${s} denied by permissions (${top}); ` +
    'if the agent needs them, allow them: --allowed-tools for a new run, allowed_tools in config.yaml ' +
    "for every run, or this run's run.yaml for its next session"
  );
}
