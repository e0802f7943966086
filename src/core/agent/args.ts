import type { RunSpec, SessionMode } from '../run/types.js';
import { sessionBudget } from '../supervise/budget.js';
import {
  continuePrompt,
  handoverPrompt,
  initialPrompt,
  RESUME_PROMPT,
  SYNTHESIS_PROMPT,
} from './briefing.js';

// The agent's argv and stdin for each kind of session. The prompt only ever goes to stdin.

/** `fresh`: a new conversation (its id already in `spec`), not a resume of the old one. */
export function agentArgs(spec: RunSpec, mode: SessionMode, spentUsd = 0, fresh = false): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  args.push(
    ...(mode === 'initial' || fresh ? ['--session-id', spec.sessionId] : ['--resume', spec.sessionId]),
  );
  if (spec.model) args.push('--model', spec.model);
  if (spec.fallbackModel) args.push('--fallback-model', spec.fallbackModel);
  const budget = sessionBudget(spec, mode, spentUsd);
  if (budget !== null) args.push('--max-budget-usd', budget.toFixed(4));
  args.push('--permission-mode', spec.permissionMode);
  // Last, because it takes a list: one argument per tool, so patterns may hold commas and spaces.
  if (spec.allowedTools.length > 0) args.push('--allowedTools', ...spec.allowedTools);
  return args;
}

export function promptFor(
  spec: RunSpec,
  mode: SessionMode,
  now: Date,
  handover?: { lastResult: string | null },
): string {
  if (mode === 'initial') return initialPrompt(spec.task);
  if (handover)
    return (
      handoverPrompt(spec.task, handover.lastResult) + (mode === 'synthesis' ? `\n${SYNTHESIS_PROMPT}` : '')
    );
  if (mode === 'continue') return continuePrompt(spec.endsAt, now);
  return mode === 'synthesis' ? SYNTHESIS_PROMPT : RESUME_PROMPT; // resume and retry
}

/** Why a permission mode cannot work for this user, or undefined when it can. */
export function permissionModeProblem(
  mode: string,
  isRoot: boolean,
  env: Record<string, string | undefined>,
): string | undefined {
  if (mode === 'bypassPermissions' && isRoot && env.IS_SANDBOX !== '1') {
    return (
      'permission_mode bypassPermissions is refused by Claude Code when running as root ' +
      '(every session would exit 1 at once); ' +
      'use acceptEdits, or set IS_SANDBOX=1 if this machine is a disposable sandbox'
    );
  }
  return undefined;
}
