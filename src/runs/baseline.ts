import { observeCheck } from '../adapters/check.js';
import type { RunPaths } from '../core/run/paths.js';
import type { VerifySpec } from '../core/verify/types.js';
import { checkError } from '../core/verify/verdict.js';

// A repository run's baseline is started by launch (under the lock, which it holds for no longer
// than a spawn) and observed by the passes. Launch looks for a few seconds, without the lock, for a
// baseline that cannot run at all (command not found), to say so at once with its last lines.

/** How long launch looks for a baseline that fails at once. */
export const BASELINE_LOOK_MS = 3_000;

export async function baselineWarning(paths: RunPaths, verify: VerifySpec): Promise<string | null> {
  const deadline = Date.now() + BASELINE_LOOK_MS;
  for (;;) {
    const c = await observeCheck(paths, 'baseline', new Date());
    if (c && c.state !== 'running' && c.state !== 'starting') {
      const error = checkError(c, verify.timeout);
      if (!error) return null;
      const tail = c.tail ? `; its last lines:\n${c.tail.replace(/^/gm, '  ')}` : '';
      return `warning: the check \`${verify.command}\` cannot run on the base commit: ${error}${tail}`;
    }
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}
