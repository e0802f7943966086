import { backendOf, type SessionView } from '../adapters/backend/index.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';

// What reading runs shares across them (a pass, status, the digest): settings, output, and each
// backend asked once. The pass's own state (its lock, its hooks) is in reconcile/context.ts.

export interface ReadContext {
  root: string;
  settings: Settings;
  io: Io;
  /** A dry run: nothing is written, not even a derived file such as a stream index. */
  dryRun?: boolean;
  /**
   * Each backend that lists (tmux, per server) is asked once per pass, and only if some run needs
   * it; forget them with `ctx.views = undefined` (a round may have started sessions).
   */
  views?: Map<string, Promise<Map<string, SessionView>>>;
}

/** The run's session as its backend sees it (a listing backend asked once per pass). */
export async function viewOf(ctx: ReadContext, spec: RunSpec, paths: RunPaths): Promise<SessionView> {
  const backend = backendOf(spec, paths);
  const key = backend.listKey;
  if (key === null) return backend.observe({ id: spec.id, paths });
  ctx.views ??= new Map();
  let views = ctx.views.get(key);
  if (!views) {
    views = backend.list();
    // A listing that failed is asked again by the next run that needs it, not kept for the pass.
    views.catch(() => ctx.views?.delete(key));
    ctx.views.set(key, views);
  }
  return (await views).get(backend.sessionName(spec.id)) ?? { alive: false, where: null };
}
