import { usableRunsRoot } from '../adapters/runs-root.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { formatDuration } from '../core/config/duration.js';
import { DEFAULT_EVERY } from '../core/schedule/cron.js';
import { safeLine } from '../core/text.js';
import { installSchedule, uninstallSchedule } from '../schedule/install.js';
import { reportLines, scheduleReport } from '../schedule/status.js';
import { checkBackend, parseEvery } from '../schedule/values.js';

// `overnight schedule install|uninstall|status`: who runs `overnight reconcile` when nobody is there.

export type ScheduleAction = 'install' | 'uninstall' | 'status';

export interface ScheduleOptions {
  every?: string;
  backend?: string;
  json?: boolean;
}

const LINGER =
  'systemd user timers stop when you log out unless lingering is on: run `loginctl enable-linger $USER` once';

export async function scheduleCommand(
  action: ScheduleAction,
  opts: ScheduleOptions,
  io: Io,
): Promise<number> {
  const backend = opts.backend === undefined ? undefined : checkBackend(opts.backend);
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  const out = (line: string) => io.stdout(safeLine(line));
  if (action === 'install') {
    const text = opts.every ?? DEFAULT_EVERY;
    const every = { seconds: parseEvery(text), text };
    // The log is appended to in the runs root: it must exist before the first pass.
    usableRunsRoot(root, 'create');
    const r = await installSchedule(settings, backend, every, io.env, io.now(), io.cmd);
    if (opts.json) {
      const { backend: b, everySeconds, runsRoot, where, log, path, installedAt } = r;
      io.stdout(JSON.stringify({ backend: b, everySeconds, runsRoot, where, log, path, installedAt }));
      return 0;
    }
    for (const e of r.replaced)
      out(`removed the ${e.backend} entry for ${root} (${e.where}): ${r.backend} replaces it`);
    out(`${r.backend}: \`overnight reconcile\` every ${formatDuration(r.everySeconds)} for ${root}`);
    out(`  entry:  ${r.where}`);
    out(`  log:    ${r.log}`);
    out(`  PATH:   ${r.path}`);
    if (r.missing.tmux)
      io.stderr('note: tmux was not found on PATH; runs launched without it run detached (logs -f to watch)');
    if (r.missing.claude)
      io.stderr(
        `warning: the agent binary "${settings.claude}" was not found on PATH; ` +
          "its directory is not on the schedule's PATH",
      );
    if (r.backend === 'systemd') out(`note: ${LINGER}`);
    return 0;
  }
  usableRunsRoot(root, 'read');
  if (action === 'uninstall') {
    const removed = await uninstallSchedule(root, backend, io.env);
    if (opts.json) {
      const list = removed.map((e) => ({ backend: e.backend, where: e.where }));
      io.stdout(JSON.stringify({ runsRoot: root, removed: list }));
      return 0;
    }
    if (removed.length === 0)
      out(`no schedule was installed for ${root}${backend ? ` in ${backend}` : ''}; nothing to remove`);
    for (const e of removed) out(`removed the ${e.backend} entry for ${root} (${e.where})`);
    return 0;
  }
  const report = await scheduleReport(root, backend, io.env, io.now(), io.cmd);
  if (opts.json) io.stdout(JSON.stringify(report, null, 2));
  else for (const line of reportLines(report, io.now())) out(line);
  return 0;
}
