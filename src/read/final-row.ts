import { hashText } from '../core/hash.js';
import { isBackend } from '../core/run/backend.js';
import { intIn, isTime, numberIn, SESSION_MAX, TEXT_MAX, WORD_MAX } from '../core/run/bounds.js';
import { RUN_STATES } from '../core/run/types.js';
import { parseCause } from '../core/supervise/causes.js';
import { VERDICTS } from '../core/verify/verdict.js';
import type { StatusRow } from './rows.js';

// final.json read back: the row a finished run was summarized into, checked field by field as
// untrusted input (the run's agent may have written it). Unknown fields are dropped; a field of the
// wrong type, out of range or too long makes the whole file unusable, and says which field.

export type FinalRow = StatusRow & { countsStamp?: string };

type Check = (v: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const text =
  (max = TEXT_MAX): Check =>
  (v) =>
    typeof v === 'string' && v.length <= max;
const word = text(WORD_MAX);
const time: Check = isTime;
const count: Check = (v) => intIn(v, 0, Number.MAX_SAFE_INTEGER) !== null;
const money: Check = (v) => numberIn(v, 0, 1e9) !== null;
const bool: Check = (v) => typeof v === 'boolean';
const nullable =
  (c: Check): Check =>
  (v) =>
    v === null || c(v);
const listOf =
  (c: Check, max: number): Check =>
  (v) =>
    Array.isArray(v) && v.length <= max && v.every(c);
// Plain indexed loops here and below, no destructuring: status checks every field of a thousand
// cached rows, mostly before the code is optimized, where an iterator per field is what costs.
const shape = (fields: Record<string, Check>, optional: readonly string[] = []): Check => {
  const keys = Object.keys(fields);
  const checks = Object.values(fields);
  const mayLack = keys.map((k) => optional.includes(k));
  return (v) => {
    if (!isObject(v)) return false;
    for (let i = 0; i < keys.length; i++) {
      const x = v[keys[i] as string];
      if (!(x === undefined && mayLack[i]) && !(checks[i] as Check)(x)) return false;
    }
    return true;
  };
};

const usageWindow = shape({ utilization: (v) => numberIn(v, 0, 100) !== null, resetsAt: nullable(time) });

const names = listOf(text(), 50);
/** What became of the baseline's tests (core/verify/accounting.ts). */
const accounting = shape({
  basis: (v) => v === 'tests' || v === 'counts',
  newFailures: names,
  newFailureCount: count,
  skipped: names,
  skippedCount: count,
  gone: names,
  goneCount: count,
  removed: names,
  removedCount: count,
  fixed: names,
  fixedCount: count,
  added: count,
  passedBefore: count,
  passedNow: count,
});

/** Every field a summary may hold, and what it must be. */
const FIELDS: Record<string, Check> = {
  id: word,
  state: (v) => (RUN_STATES as readonly unknown[]).includes(v),
  reason: text(),
  task: nullable(text()),
  taskMore: bool,
  name: text(),
  workspace: text(),
  session: word,
  watch: text(),
  startedAt: nullable(time),
  endsAt: nullable(time),
  nextTryAt: time,
  lastOutputAt: nullable(time),
  restarts: count,
  maxRestarts: nullable(count),
  findings: count,
  questions: count,
  sessions: (v) => intIn(v, 0, SESSION_MAX) !== null,
  costUsd: money,
  tokens: shape({ input: count, output: count }),
  permissionDenials: shape({
    count,
    tools: listOf(shape({ name: word, count }), 1000),
  }),
  usageWindows: shape({ fiveHour: usageWindow, sevenDay: usageWindow }, ['fiveHour', 'sevenDay']),
  retrying: shape({ count, status: nullable(count), error: nullable(text()), since: nullable(time) }),
  report: bool,
  problem: text(),
  warnings: listOf(text(), 100),
  doing: listOf(text(), 100),
  continues: word,
  continuedBy: word,
  handedOver: word,
  repo: text(),
  branch: text(),
  base: word,
  worktree: text(),
  commits: nullable(listOf(shape({ sha: word, subject: text() }), 1000)),
  lastTransition: nullable((v) => transitionOf(v) !== null),
  verify: shape(
    {
      command: nullable(text()),
      verdict: (v) => (VERDICTS as readonly unknown[]).includes(v),
      basis: nullable((v) => ['tests', 'counts', 'exit-code'].includes(v as string)),
      newFailures: listOf(text(), 1000),
      newFailureCount: count,
      accounting: nullable(accounting),
      commit: nullable(word),
      changedTests: listOf(text(), 200),
      output: nullable(text()),
    },
    // Rows written before every baseline test was accounted for.
    ['basis', 'accounting', 'commit', 'changedTests'],
  ),
  review: shape({
    verdict: nullable((v) => v === 'approve' || v === 'concerns' || v === 'reject'),
    summary: text(2000),
    findings: listOf(
      shape({
        file: nullable(text(300)),
        line: nullable(count),
        severity: (v) => ['low', 'medium', 'high', 'critical'].includes(v as string),
        text: text(1000),
      }),
      50,
    ),
    unfinished: nullable(text()),
    costUsd: money,
  }),
  countsStamp: word,
  cause: (v) => parseCause(v) !== null,
  backend: (v) => typeof v === 'string' && isBackend(v),
  onOverage: (v) => v === true,
  notifyFailing: (v) => v === true,
  agentRunning: (v) => v === true,
};

const REQUIRED = ['id', 'state', 'reason'];

// In FIELDS' order (the row's, so the JSON printed keeps it), made once: status reads a thousand.
const FIELD_LIST = Object.entries(FIELDS);

/** Summaries written before a field existed: what the row must have, as a run without it. */
const defaults = (): Record<string, unknown> => ({
  task: null,
  startedAt: null,
  endsAt: null,
  lastOutputAt: null,
  restarts: 0,
  maxRestarts: null,
  findings: 0,
  questions: 0,
  lastTransition: null,
  session: '',
  costUsd: 0,
  sessions: 0,
  tokens: { input: 0, output: 0 },
  permissionDenials: { count: 0, tools: [] },
});

/** The row's keys in order: the defaults', then the others' in FIELDS' order. */
const ROW_ORDER = [...new Set([...Object.keys(defaults()), ...Object.keys(FIELDS)])];

/**
 * The row's form as text: status's row cache (kept as printed, never made again) is used only by a
 * version whose rows have the same keys in the same order. Bump the number when a check changes.
 */
export const ROW_FORM = `2 ${hashText(ROW_ORDER.join(','))}`;

/** A summary's row, or the first field that makes it unusable. */
export function parseFinal(text: string, id: string): { row: FinalRow } | { bad: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { bad: 'is not JSON' };
  }
  return parseFinalDoc(doc, id);
}

/** Each field's check, and its place in FIELDS (the first invalid one is the one named). */
const CHECKS = new Map(FIELD_LIST.map(([k, check], i) => [k, { check, i }]));
/** Each key's place in the row. */
const RANK = new Map(ROW_ORDER.map((k, i) => [k, i]));
const DEFAULT_KEYS = new Set(Object.keys(defaults()));

/** The row's keys in order, each with its check and whether a summary must have it. */
const ORDER = ROW_ORDER.map((key) => ({
  key,
  check: FIELDS[key] as Check,
  required: DEFAULT_KEYS.has(key) || REQUIRED.includes(key),
}));
const REQUIRED_COUNT = ORDER.filter((f) => f.required).length;

/**
 * Whether `doc` is a row as overnight writes one: known keys only, in the row's order, each valid,
 * the required fields and the defaults all there. One walk of the order beside the keys, no
 * lookup by name: status checks a thousand cached rows, cold.
 */
function inRowForm(doc: Record<string, unknown>): boolean {
  const keys = Object.keys(doc);
  let at = 0;
  let required = 0;
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j] as string;
    while (at < ORDER.length && (ORDER[at] as (typeof ORDER)[number]).key !== k) at++;
    const field = ORDER[at];
    if (!field) return false;
    const v = doc[k];
    if (v === undefined) return false;
    // A transition is checked by making it: it is the value itself when it is one.
    if (!(k === 'lastTransition' ? v === null || transitionOf(v) !== null : field.check(v))) return false;
    if (field.required) required++;
    at++;
  }
  return required === REQUIRED_COUNT;
}

/** A summary's row from its parsed JSON (a row status cached is checked again so too). */
export function parseFinalDoc(doc: unknown, id: string): { row: FinalRow } | { bad: string } {
  if (!isObject(doc)) return { bad: 'is not a JSON object' };
  // All overnight writes: the row itself. Anything else is looked at field by field below.
  if (doc.id === id && inRowForm(doc)) return { row: doc as unknown as FinalRow };
  for (const k of REQUIRED) if (doc[k] === undefined) return { bad: `has no ${k}` };
  // Only the fields the file has are looked at (a missing key is a slow lookup, times 40): status
  // reads a thousand of these. A summary already in the row's form (known keys in its order,
  // every default there: all overnight writes) is the row itself; any other is made into one.
  const keys = Object.keys(doc);
  let firstBad = FIELD_LIST.length;
  let inForm = true;
  let last = -1;
  let defaultsSeen = 0;
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j] as string;
    const field = CHECKS.get(k);
    const v = doc[k];
    if (!field || v === undefined) {
      inForm = false;
      continue;
    }
    // A transition is checked by making it: it is the value itself when it is one.
    const ok = k === 'lastTransition' ? v === null || transitionOf(v) !== null : field.check(v);
    if (!ok && field.i < firstBad) firstBad = field.i;
    const rank = RANK.get(k) as number;
    if (rank < last) inForm = false;
    last = rank;
    if (DEFAULT_KEYS.has(k)) defaultsSeen++;
  }
  if (firstBad < FIELD_LIST.length)
    return { bad: `has an invalid ${(FIELD_LIST[firstBad] as [string, Check])[0]}` };
  if (doc.id !== id) return { bad: `is another run's (id ${JSON.stringify(String(doc.id).slice(0, 80))})` };
  if (inForm && defaultsSeen === DEFAULT_KEYS.size) return { row: doc as unknown as FinalRow };
  const fallback = defaults();
  const row: Record<string, unknown> = {};
  for (const k of ROW_ORDER) {
    if (CHECKS.has(k) && doc[k] !== undefined && Object.hasOwn(doc, k)) row[k] = doc[k];
    else if (k in fallback) row[k] = fallback[k];
  }
  return { row: row as unknown as FinalRow };
}

/**
 * An events.jsonl line as the dashboard shows it (`lastTransition`): flat, its values short
 * primitives, its time a sane one. Null for anything else.
 */
export function transitionOf(v: unknown): Record<string, unknown> | null {
  if (!isObject(v)) return null;
  const keys = Object.keys(v);
  if (keys.length > 32 || (v.at !== undefined && !time(v.at))) return null;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const x = v[k];
    const flat =
      k.length <= WORD_MAX &&
      (x === null ||
        typeof x === 'boolean' ||
        (typeof x === 'number' && Number.isFinite(x)) ||
        (typeof x === 'string' && x.length <= TEXT_MAX));
    if (!flat) return null;
  }
  return v;
}
