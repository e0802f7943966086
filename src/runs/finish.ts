import { rmSync } from 'node:fs';

import { exists } from '../adapters/files.js';
import { waitLock } from '../adapters/lock.js';
import { appendEvent, readSentinel, readSpec, writeSpec } from '../adapters/store.js';
import { hint, type Io } from '../app/io.js';
import { humanTime } from '../core/agent/briefing.js';
import { formatDuration } from '../core/config/duration.js';
import type { Settings } from '../core/config/settings.js';
import { rootPaths, runPaths } from '../core/run/paths.js';
import type { Cause } from '../core/supervise/causes.js';
import { passHooks } from '../reconcile/hooks.js';
import { reconcileOne } from '../reconcile/pass.js';

// `finish`: the night ends now, with its report. The end time becomes now (run.yaml and the
// events log say so), and a pass for this run does the rest as at any end time: the agent is
// interrupted, the synthesis writes REPORT.md within synthesis_budget, then DONE.

export const FINISHED_EARLY = 'finished early by user';

/** Lines saying what was done, for the person who asked. */
export async function finishRun(root: string, id: string, settings: Settings, io: Io): Promise<string[]> {
  const paths = runPaths(root, id);
  const lines: string[] = [];
  // Under the pass lock: no pass acts on the run between the new end time and this pass.
  const release = await waitLock(rootPaths(root).lock, 60_000, () => {});
  try {
    const sentinel = readSentinel(paths);
    if (sentinel) return [`${id}: already finished (${sentinel.kind}: ${sentinel.reason})`];
    const spec = await readSpec(paths);
    const now = io.now();
    if (spec.endsAt.getTime() > now.getTime()) {
      await writeSpec(paths, { ...spec, endsAt: now });
      appendEvent(paths, now, {
        action: 'finish',
        cause: 'finished-early' satisfies Cause,
        reason: FINISHED_EARLY,
        endsAt: now.toISOString(),
        was: spec.endsAt.toISOString(),
      });
      lines.push(`${id}: the end time is now (it was ${humanTime(spec.endsAt)})`);
    } else lines.push(`${id}: its end time has already passed (${humanTime(spec.endsAt)})`);
    if (exists(paths.pause)) {
      // The report is what the person asked for: a pause of this run would hold it back.
      rmSync(paths.pause, { force: true });
      appendEvent(paths, now, {
        action: 'resume',
        cause: 'finished-early' satisfies Cause,
        reason: FINISHED_EARLY,
      });
      lines.push(`${id}: its pause is lifted`);
    }
    if (exists(rootPaths(root).pauseAll)) {
      lines.push(
        `${id}: every run is paused; ` +
          `the synthesis starts once they are resumed (${hint(io, 'resume --all')})`,
      );
      return lines;
    }
    // Should this pass end the run (DONE, FAILED), its notice is queued before the run is summarized.
    const ctx = { root, settings, io, lockLost: false, hooks: await passHooks(settings, io) };
    await reconcileOne(id, ctx, (o) => lines.push(`${id}: ${o.message}`));
    const budget = formatDuration(spec.limits.synthesisBudget);
    lines.push(
      `The report goes to ${paths.report} (the synthesis may take up to ${budget}); ` +
        `follow it with: ${hint(io, `logs -f ${id}`)}`,
    );
    return lines;
  } finally {
    await release();
  }
}
