import { markTypicalRun } from '../app/code-cache.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { maskSecrets } from '../core/mask.js';
import { safeJson, safeLine } from '../core/text.js';
import { runPass } from '../reconcile/pass.js';

// `overnight reconcile`: one pass over every unfinished run, said as text or JSON.

export interface ReconcileOptions {
  dryRun?: boolean;
  json?: boolean;
  /** Milliseconds to keep trying for a held lock (the wrapper's and the backoff timer's passes). */
  retryLock?: number;
  /** The pass was started by the installed schedule (cron, launchd, systemd). */
  scheduled?: boolean;
  /** The run whose agent has just ended (the wrapper's pass): served first. */
  forRun?: string;
}

export async function reconcileCommand(opts: ReconcileOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const result = await runPass(settings, io, {
    ...opts,
    everyOutcome: opts.json,
    // Each line as it happens: a pass that acts on many runs may take a while.
    onOutcome: (o) => {
      const line = safeLine(maskSecrets(`${o.id}: ${o.message}`));
      if (!opts.json) (o.action === 'error' ? io.stderr : io.stdout)(line);
    },
  });
  if (!result.ran) io.stderr('another reconcile pass is running; it will run again for this request');
  // A pass over live runs that acted on none is what most passes are: its code is the one to cache.
  const steady = result.ran && (result.runs ?? 0) > 0 && result.outcomes.every((o) => o.action === 'none');
  if (steady && !opts.dryRun) markTypicalRun();
  if (opts.json) io.stdout(maskSecrets(safeJson(result.outcomes, 2)));
  return result.outcomes.some((o) => o.action === 'error') ? 1 : 0;
}
