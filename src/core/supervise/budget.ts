import type { RunSpec } from '../run/types.js';

// The spend cap (max_cost): how much each session may spend.

/** Exploring may spend this share of the cap; the rest is kept for the report. */
export const EXPLORE_SHARE = 0.9;

/** Below this, a synthesis could not say anything useful. */
export const MIN_SYNTHESIS_USD = 0.01;

/** The --max-budget-usd for the next session, or null without a cap. */
export function sessionBudget(spec: RunSpec, mode: string, spentUsd: number): number | null {
  if (spec.maxCost === null) return null;
  const limit = mode === 'synthesis' ? spec.maxCost : spec.maxCost * EXPLORE_SHARE;
  return Math.max(0, Math.floor((limit - spentUsd) * 10000) / 10000);
}
