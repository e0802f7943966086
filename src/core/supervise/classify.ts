import { isApiTrouble } from '../agent/api-trouble.js';
import { blockerOf, isOutputCap } from './blocked.js';
import type { ResultFacts } from './types.js';

// How an ended session ended, from its exit status and what it said. Pure.

const facts = (r: ResultFacts) => ({
  isError: r.isError,
  text: r.text,
  apiErrorStatus: r.apiErrorStatus ?? null,
  apiErrorType: r.apiErrorType ?? null,
  apiError: r.apiError ?? null,
});

export type EndClass =
  | 'finished'
  | 'clean-exit'
  | 'interrupted'
  | 'usage-limit'
  | 'auth'
  | 'api-trouble'
  | 'out-of-memory'
  | 'max-turns'
  | 'max-budget'
  | 'output-cap'
  | 'blocked'
  | 'crash';

/** What an ended session showed, as classifyEnd reads it (session-end.ts has what decide reads). */
export interface EndSigns {
  exitCode: number | null;
  result: ResultFacts | null;
  limited: boolean;
  auth: boolean;
  reportExists: boolean;
  /** The CLI's typed cause of the error it ended on, if it gave one (`account_on_hold`, …). */
  errorType?: string | null;
  /** overnight itself stopped the agent (a hang, the end time), so a SIGKILL is no mystery. */
  stoppedByUs: boolean;
}

export function classifyEnd(f: EndSigns): EndClass {
  const r = f.result;
  if (f.limited) return 'usage-limit';
  // What only the person can fix comes before a refused login: retrying it proves nothing.
  if (blockerOf(f.errorType)) return 'blocked';
  if (f.auth) return 'auth';
  if (isOutputCap(f.errorType, r?.apiError)) return 'output-cap';
  if (r?.subtype === 'error_max_turns') return 'max-turns';
  if (r?.subtype === 'error_max_budget_usd') return 'max-budget';
  if (r && isApiTrouble(facts(r))) return 'api-trouble';
  if (f.exitCode === 137 && !f.stoppedByUs) return 'out-of-memory';
  // A clean result whose exit went unrecorded (its wrapper was killed) is still a clean end.
  if ((f.exitCode === 0 || f.exitCode === null) && r && !r.isError)
    return f.reportExists ? 'finished' : 'clean-exit';
  // SIGINT: exit 0 with no result, or (racing) an aborted error_during_execution result.
  if (f.exitCode === 0 && (!r || r.subtype === 'error_during_execution')) return 'interrupted';
  return 'crash';
}

/** Ends that are no failure: the session stopped where it was told to, and the run goes on. */
export const NORMAL_ENDS: readonly EndClass[] = [
  'finished',
  'clean-exit',
  'max-turns',
  'max-budget',
  'output-cap',
];

/**
 * How a crash-like end is named in reasons, with how the process ended (`how`, e.g. `killed by
 * SIGKILL (exit 137)`) said once; plain crashes say "agent ended".
 */
export function endLabel(c: EndClass, how: string): string {
  switch (c) {
    case 'api-trouble':
      return `the API failed (${how})`;
    case 'out-of-memory':
      return `${how}, perhaps out of memory`;
    case 'interrupted':
      return `interrupted without a result (${how})`;
    case 'output-cap':
      return `a reply cut off at the output-token cap (${how})`;
    default:
      return `agent ended (${how})`;
  }
}

/** Questions that nobody will answer at night: the CLI waiting on a person, not working. */
const PROMPTS = [
  /do you trust the files/i,
  /trust this folder/i,
  /press enter to continue/i,
  // Lines are trimmed at their end: one `\s*` only, as two around an optional backtrack on spaces.
  /\((?:y\/n|yes\/no)\)(?:\s*[:?])?$/i,
  /\[y\/n\](?:\s*[:?])?$/i,
  /(?:enter|paste) your (?:anthropic )?api key/i,
  /do you want to use this api key/i,
  /select (?:an option|a login method|login method)/i,
  /^\s*❯\s*1\./,
];

/** The prompt a silent agent's output ends with, if it is one; stream-json lines are never prompts. */
export function waitingPrompt(tail: string): string | null {
  const lines = tail
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  for (const line of lines.slice(-3).reverse()) {
    if (line.startsWith('{')) return null;
    if (PROMPTS.some((p) => p.test(line))) return line.trim().slice(0, 200);
  }
  return null;
}
