import { intIn, numberIn } from './bounds.js';

// What a follow-up run (`overnight continue`) took over from the run it continues, as recorded in
// its `.overnight/continuation.json` when it was made (never changed after): every first session
// and every hand-over of the follow-up is told from it. Pure: text in, values out.

export interface AnsweredQuestion {
  title: string;
  answer: string;
}

export interface Continuation {
  /** The run it continues. */
  from: string;
  /** That run's directory when it was continued (it may be archived since). */
  fromWorkspace: string;
  /** How that run ended: its sentinel's reason. */
  ended: string;
  /**
   * The earlier conversation, resumed into this run's own (`--resume <fork> --fork-session
   * --session-id <this run's id>`); null when the follow-up was handed over instead.
   */
  fork: string | null;
  /** Why the conversation was not resumed, when it was not. */
  why: string | null;
  /** What the earlier conversation had cost by then: the fork's running total starts there. */
  inheritedCostUsd: number;
  /** The questions the person answered, in file order. */
  answered: AnsweredQuestion[];
  /** How many questions are still open. */
  open: number;
  /** The person's notes for the new night (`--task-file`), verbatim. */
  notes: string | null;
  /** The earlier run left a report, kept as `previous/REPORT.md`. */
  report: boolean;
  /** The earlier run's last words (a successful result's text), for a hand-over. */
  lastWords: string | null;
}

export function serializeContinuation(c: Continuation): string {
  return JSON.stringify({ v: 1, ...c }) + '\n';
}

// Read back as untrusted: a string longer than any overnight writes reads as missing.
const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= TEXT_LONG ? v : null);
/** The person's notes are a brief; answers and last words a few paragraphs. */
const TEXT_LONG = 1024 * 1024;

/** Null when the text is not such a record (a torn or foreign file): the follow-up then starts plainly. */
export function parseContinuation(text: string): Continuation | null {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || v.v !== 1) return null;
  const from = str(v.from);
  const fromWorkspace = str(v.fromWorkspace);
  if (!from || !fromWorkspace || !Array.isArray(v.answered)) return null;
  const answered = v.answered.slice(0, 1000).flatMap((a: unknown) => {
    const q = a as Record<string, unknown> | null;
    const title = str(q?.title);
    const answer = str(q?.answer);
    return title !== null && answer !== null ? [{ title, answer }] : [];
  });
  const cost = numberIn(v.inheritedCostUsd, 0, 1e9) ?? 0;
  return {
    from,
    fromWorkspace,
    ended: str(v.ended) ?? '',
    fork: str(v.fork),
    why: str(v.why),
    inheritedCostUsd: cost,
    answered,
    open: intIn(v.open, 0, 1_000_000) ?? 0,
    notes: str(v.notes),
    report: v.report === true,
    lastWords: str(v.lastWords),
  };
}

/**
 * The link a continued run keeps to its follow-up; `head`: where a repository run's branch was
 * handed over.
 */
export interface ContinuedBy {
  id: string;
  at: string;
  head?: string;
}

export function parseContinuedBy(text: string): ContinuedBy | null {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const id = str(v?.id);
    if (!id) return null;
    return { id, at: str(v.at) ?? '', ...(str(v.head) ? { head: str(v.head) as string } : {}) };
  } catch {
    return null;
  }
}
