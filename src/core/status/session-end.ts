import type { ExitRecord } from '../run/types.js';
import { classifyEnd } from '../supervise/classify.js';
import { describeExit } from '../supervise/exits.js';
import { hangWords } from '../supervise/legacy-cause.js';
import { saysLimit } from '../supervise/limits.js';
import { oneLine } from '../text.js';

// How one session of the timeline ended and what it cost, said once. Pure.

/** What the timeline reads of a session's part of output.log (a SessionLog has these and more). */
export interface SessionFacts {
  n: number | null;
  mode: string | null;
  sessionId: string | null;
  apiRetries: number;
  result: {
    sessionId: string | null;
    subtype: string;
    isError: boolean;
    apiErrorStatus: number | null;
    text: string;
    costUsd: number;
  } | null;
}

/**
 * `ok` ended its turn; `error` an error result, a crash or a signal nobody asked for; `limit` a
 * usage limit; `stopped` overnight or the person stopped it; `running` still at work; `unknown`
 * nothing recorded says how.
 */
export type EndKind = 'ok' | 'error' | 'limit' | 'stopped' | 'running' | 'unknown';

export interface SessionEnd {
  kind: EndKind;
  /** `ended its turn`, `error: API 529 overloaded`, `killed by SIGKILL (exit 137)`, … */
  text: string;
  exit: number | null;
}

export interface SessionEndFacts {
  exit: ExitRecord | null;
  result: SessionFacts['result'];
  running: boolean;
  /** The run is paused: a running session goes on, nothing restarts it. */
  paused?: boolean;
  /** What overnight or the person did to stop it, if anything. */
  stoppedBy: { kind: 'interrupt' | 'hang'; reason: string; atEndTime?: boolean } | null;
}

/** What the timeline knows nothing of: judged as decide would without them. */
const endFacts = { auth: false, reportExists: false, stoppedByUs: false };

export function sessionEnd(f: SessionEndFacts): SessionEnd {
  const exit = f.exit?.code ?? null;
  const end = (kind: EndKind, text: string): SessionEnd => ({ kind, text, exit });
  if (f.running) return end('running', f.paused ? 'running, paused' : 'running');
  if (f.stoppedBy?.kind === 'hang') {
    const why = hangWords(f.stoppedBy.reason);
    return end('stopped', `stopped as hung (${why})`);
  }
  if (f.stoppedBy) {
    if (f.stoppedBy.atEndTime) return end('stopped', 'interrupted at the end time');
    return end('stopped', oneLine(f.stoppedBy.reason, 100));
  }
  const r = f.result;
  if (r && !r.isError) {
    return end('ok', r.subtype === 'success' ? 'ended its turn' : `ended its turn (${r.subtype})`);
  }
  if (r) {
    const status = r.apiErrorStatus ? `API ${r.apiErrorStatus}: ` : '';
    const said = oneLine(r.text, 100) || r.subtype;
    // Named as decide names it (classify.ts): a 429 that is no usage limit is API trouble.
    const limited =
      classifyEnd({ ...endFacts, exitCode: exit, result: r, limited: saysLimit(r.text) }) === 'usage-limit';
    return end(limited ? 'limit' : 'error', `error: ${status}${said}`);
  }
  if (exit === null) return end('unknown', 'ended without an exit status or a result');
  // Claude Code exits 0 without a result when it is sent SIGINT.
  if (exit === 0) return end('error', 'interrupted without a result (exit 0)');
  if (exit === 137) return end('error', `${describeExit(exit)}, perhaps out of memory`);
  return end('error', `${describeExit(exit)} without a result`);
}

/**
 * What each session cost: a result's total_cost_usd is its conversation's running total (a
 * resume restores it), so a session's share is what its conversation's total grew by.
 */
export function sessionCosts(sessions: readonly SessionFacts[]): Map<number, number> {
  const totals = new Map<string, number>();
  const out = new Map<number, number>();
  sessions.forEach((s, i) => {
    if (!s.result || s.n === null) return;
    const conversation = s.result.sessionId ?? s.sessionId ?? `#${i}`;
    const before = totals.get(conversation) ?? 0;
    totals.set(conversation, s.result.costUsd);
    out.set(s.n, Math.max(0, Math.round((s.result.costUsd - before) * 1e6) / 1e6));
  });
  return out;
}
