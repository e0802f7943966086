// A reviewer with fresh eyes: after the final check and before the synthesis, a separate session
// in a fresh conversation reads the night's work (the brief, the branch's diff, the verdict, the
// tests the night changed) with read-only tools and returns a structured review.

/** run.yaml's `review`: absent for a run without one. */
export interface ReviewSpec {
  /** Seconds the review may take before it is stopped (`review_budget`). */
  budget: number;
  /** Its own model (`review_model`), or null for the run's. */
  model: string | null;
}

export const REVIEW_VERDICTS = ['approve', 'concerns', 'reject'] as const;
export type ReviewVerdict = (typeof REVIEW_VERDICTS)[number];

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface Finding {
  file: string | null;
  line: number | null;
  severity: Severity;
  text: string;
}

/** What the review came to, or why it did not finish (then `verdict` is null). */
export interface Review {
  verdict: ReviewVerdict | null;
  summary: string;
  findings: Finding[];
  /** Why there is no review: it timed out, crashed, hit a limit, or returned nothing readable. */
  unfinished: string | null;
  costUsd: number;
}

/** The shape the review must return (`claude --json-schema`): the CLI checks it, overnight again. */
export const REVIEW_SCHEMA = {
  type: 'object',
  properties: {
    verdict: { enum: [...REVIEW_VERDICTS] },
    summary: { type: 'string', maxLength: 2000 },
    findings: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        properties: {
          file: { type: ['string', 'null'] },
          line: { type: ['integer', 'null'] },
          severity: { enum: [...SEVERITIES] },
          text: { type: 'string', maxLength: 1000 },
        },
        required: ['severity', 'text'],
      },
    },
  },
  required: ['verdict', 'summary', 'findings'],
} as const;
