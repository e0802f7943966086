import { parseCause, type Cause } from '../supervise/causes.js';
import { legacyCause } from '../supervise/legacy-cause.js';
import type { Sentinel } from './types.js';

// DONE and FAILED as text: the reason on the first line for people, the cause code on the second
// for tools. Pure.

export function sentinelText(reason: string, cause: Cause): string {
  return `${reason.replace(/\n/g, ' ')}\n${cause}\n`;
}

/**
 * The code is checked against the closed list; a record written before codes (or with a code not
 * in the list) has its cause read from its reason.
 */
export function parseSentinel(kind: Sentinel['kind'], text: string): Sentinel {
  const [first, second] = text.trim().split('\n');
  const reason = first?.trim() || (kind === 'DONE' ? 'done' : 'failed');
  return { kind, reason, cause: parseCause(second?.trim()) ?? legacyCause(reason) };
}
