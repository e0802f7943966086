import { listOutbox, outboxProblem, readDelivery } from '../adapters/outbox.js';
import { failureWarning } from '../core/notify/delivery.js';
import { DIGEST_RUN } from '../core/notify/digest.js';
import { rootPaths } from '../core/run/paths.js';

// What status says about notifications that did not get through: per run, one line per target
// (its latest failure), in the order of their names, read from the outbox (one directory read
// when it is empty).

export function notifyWarnings(root: string): Map<string, string[]> {
  const latest = new Map<string, { at: string; line: string; label: string }>();
  try {
    const { keys, done } = listOutbox(root);
    for (const key of keys) {
      if (done.get(key) === 'sent') continue;
      const d = readDelivery(root, key);
      const line = d && failureWarning(d);
      if (!d || !line) continue;
      const at = d.doneAt ?? d.nextAt;
      const k = `${d.run}\n${d.target.id}`;
      const seen = latest.get(k);
      if (!seen || seen.at < at) latest.set(k, { at, line, label: d.target.label });
    }
  } catch {
    // status shows every run whatever the outbox holds
  }
  const byRun = new Map<string, string[]>();
  const byLabel = [...latest].sort(([, a], [, b]) => a.label.localeCompare(b.label));
  for (const [k, { line }] of byLabel) {
    const run = k.split('\n')[0] as string;
    byRun.set(run, [...(byRun.get(run) ?? []), line]);
  }
  return byRun;
}

/** The digest's own failures: no run's row shows them, so status says them under the table. */
export function digestWarnings(root: string): string[] {
  return notifyWarnings(root).get(DIGEST_RUN) ?? [];
}

/**
 * What keeps the outbox from being used: another user could write in it, or no target is
 * configured (then what it holds is left there, never sent). Empty when neither.
 */
export function outboxWarnings(root: string, configured: boolean): string[] {
  const problem = outboxProblem(root);
  if (problem) return [`${problem}; nothing in it is sent until then`];
  if (configured) return [];
  try {
    const { keys, done } = listOutbox(root);
    const waiting = keys.filter((k) => !done.has(k)).length;
    if (waiting === 0) return [];
    const what = waiting === 1 ? '1 notification waits' : `${waiting} notifications wait`;
    return [
      `${what} in ${rootPaths(root).notify}, but no notify: target is configured, so none is sent ` +
        '(add the target back to config.yaml, or remove them)',
    ];
  } catch {
    return [];
  }
}
