import { numberIn } from '../run/bounds.js';
import { oneLine } from '../text.js';
import {
  REVIEW_VERDICTS,
  SEVERITIES,
  type Finding,
  type Review,
  type ReviewVerdict,
  type Severity,
} from './types.js';

// What the review session printed (stream-json), read as untrusted input: only its last result
// counts, only a structured output of the promised shape is a review, every string is bounded and
// made one line, every list cut. Anything else is a review that did not finish, said why. Pure.

const MAX_FINDINGS = 50;

/** Control characters (a terminal's escapes among them) never pass: the review is shown in many places. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const str = (v: unknown, max: number): string | null =>
  typeof v === 'string' ? oneLine(v.replace(CONTROL, ' '), max) : null;

function finding(v: unknown): Finding | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const severity = SEVERITIES.find((s) => s === o.severity) as Severity | undefined;
  const text = str(o.text, 1000);
  if (!severity || !text) return null;
  const line = numberIn(o.line, 0, 1e7);
  return { file: str(o.file, 300), line: line === null ? null : Math.floor(line), severity, text };
}

/** The review from the structured output the session returned; null when it is not one. */
export function reviewOf(v: unknown, costUsd: number): Review | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const verdict = REVIEW_VERDICTS.find((x) => x === o.verdict) as ReviewVerdict | undefined;
  const summary = str(o.summary, 2000);
  if (!verdict || summary === null || !Array.isArray(o.findings)) return null;
  const findings = o.findings
    .slice(0, MAX_FINDINGS)
    .map(finding)
    .filter((f): f is Finding => f !== null);
  return { verdict, summary, findings, unfinished: null, costUsd };
}

/** A review that did not finish: no verdict, and why. */
export const unfinished = (why: string, costUsd = 0): Review => ({
  verdict: null,
  summary: '',
  findings: [],
  unfinished: why,
  costUsd,
});

/**
 * The review from the session's output (its tail) and how its process ended: `exit` null when it
 * did not end on its own (`why` says how it ended then).
 */
export function readReview(output: string, exit: number | null, why: string | null): Review {
  let result: Record<string, unknown> | null = null;
  // The last result line: stream-json, one event per line.
  for (const line of output.split('\n').reverse()) {
    if (!line.startsWith('{') || !line.includes('"type":"result"')) continue;
    try {
      result = JSON.parse(line) as Record<string, unknown>;
      break;
    } catch {
      // a torn line
    }
  }
  const cost = numberIn(result?.total_cost_usd, 0, 1e6) ?? 0;
  if (why) return unfinished(why, cost);
  if (!result) return unfinished(`it ended (exit ${exit ?? '?'}) without a result`, cost);
  if (result.is_error === true) {
    const said = str(result.result, 200) ?? str(result.subtype, 60) ?? 'an error';
    return unfinished(`it ended with an error: ${said}`, cost);
  }
  return (
    reviewOf(result.structured_output, cost) ??
    unfinished('it returned no review of the promised shape', cost)
  );
}
