import type { PaneInfo } from '../adapters/tmux.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import type { RunSpec } from '../core/run/types.js';
import type { Notifier } from '../notify/queue.js';

// What one pass (or one status) shares across runs: settings, output, and tmux asked once.

export interface PassContext {
  root: string;
  settings: Settings;
  io: Io;
  /** A dry run: nothing is written, not even a derived file such as a stream index. */
  dryRun?: boolean;
  /** Set when another pass reclaimed the lock: from then on this one starts and finishes nothing. */
  lockLost?: boolean;
  /** tmux is asked once per pass and server, and only if some run needs it. */
  panes?: Map<string, Promise<Map<string, PaneInfo>>>;
  /** Queues each run's new transitions for the notification targets; absent when there are none. */
  notifier?: Notifier;
}

/** The panes of the run's tmux server, asked once per pass (forget them with `ctx.panes = undefined`). */
export function panesOf(ctx: PassContext, spec: RunSpec): Promise<Map<string, PaneInfo>> {
  ctx.panes ??= new Map();
  const key = spec.paths.tmuxSocket ?? '';
  let panes = ctx.panes.get(key);
  if (!panes) {
    panes = import('../adapters/tmux.js').then(({ Tmux }) =>
      new Tmux(spec.paths.tmux, spec.paths.tmuxSocket).panes(),
    );
    ctx.panes.set(key, panes);
  }
  return panes;
}
