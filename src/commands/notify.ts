import { configPath } from '../adapters/config-file.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { maskSecrets } from '../core/mask.js';
import { deliverDue } from '../notify/sender.js';
import { testTargets } from '../notify/test.js';

// `overnight notify test`: a test to every target, and what each answered. `notify deliver` is
// the sender a pass starts detached (hidden): it sends what is due in the outbox.

export interface NotifyOptions {
  json?: boolean;
}

export async function notifyTestCommand(opts: NotifyOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  if (settings.notify.length === 0) {
    io.stderr(
      `no notification targets in ${configPath(io.env)}; add a notify: list, e.g.\n` +
        'notify:\n  - webhook: https://ntfy.sh/<a topic only you know>\n    format: ntfy',
    );
    return 1;
  }
  const results = await testTargets(
    settings.notify,
    io.env,
    io.now(),
    settings.runsDir,
    settings.notifyTimeout,
  );
  if (opts.json) {
    const rows = results.map(({ target, outcome }) => ({
      target: target.label,
      kind: target.kind,
      ok: outcome.ok,
      ...(outcome.ok ? { answer: outcome.answer } : { error: outcome.error }),
    }));
    io.stdout(maskSecrets(JSON.stringify(rows, null, 2)));
  } else {
    for (const { target, outcome } of results)
      io.stdout(
        maskSecrets(
          outcome.ok
            ? `ok      ${target.label}: ${outcome.answer}`
            : `failed  ${target.label}: ${outcome.error}`,
        ),
      );
    const ok = results.filter((r) => r.outcome.ok).length;
    io.stdout(`${ok} of ${results.length} target${results.length === 1 ? '' : 's'} answered.`);
  }
  return results.every((r) => r.outcome.ok) ? 0 : 1;
}

export async function notifyDeliverCommand(io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  // Without targets the outbox is left as it is (status and doctor say so): nothing in it is run.
  if (settings.notify.length === 0) {
    io.stderr('no notify: targets are configured; the outbox is left as it is');
    return 0;
  }
  const reports = await deliverDue(settings.runsDir, settings.notify, io.env, io.now, process.platform);
  const at = io.now().toISOString();
  for (const r of reports)
    io.stdout(maskSecrets(`${at} ${r.run}: ${r.event} notice to ${r.target}: ${r.status} (${r.said})`));
  return 0;
}
