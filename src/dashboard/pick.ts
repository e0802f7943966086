import { liveRunIds, readFinished } from '../adapters/run-index.js';
import { listRunIds } from '../adapters/store.js';
import { FinishedPicker, type RunFilter } from '../core/run/run-index.js';
import type { StatusRow } from '../read/rows.js';

// Which runs status reads: every live run and the finished runs of its window, from the runs
// root's indexes, so an old finished run is never opened.

export interface Picked {
  ids: string[];
  /** Finished runs outside the window were left out. */
  more: boolean;
  /** Whether a row read stays (runs without an index are judged by their rows). */
  keep: (row: StatusRow) => boolean;
}

/**
 * Every live run and the finished runs of the window, from the runs root's indexes: an old
 * finished run is never opened. Without the indexes (no pass has run since an upgrade) every run
 * is read and judged by its row.
 */
export function pickRuns(root: string, filter: RunFilter): Picked {
  // Every run asked for (--all, --json): one listing of the runs root does it.
  if (!filter.since) return { ids: listRunIds(root), more: false, keep: () => true };
  const since = filter.since;
  const live = liveRunIds(root);
  if (live === null) return byRows(listRunIds(root), since);
  const picker = new FinishedPicker(since);
  readFinished(root, picker);
  // A run the index names but the runs root no longer holds is left out by collectRows.
  const ids = [...new Set([...live, ...picker.ids])].sort();
  return { ids, more: picker.more, keep: () => true };
}

/** Runs judged by their rows: finished ones before `since` are left out (none when null). */
export function byRows(ids: string[], since: Date | null): Picked {
  let more = false;
  const keep = (r: StatusRow) => {
    const recent = !since || isRecent(r, since);
    if (!recent) more = true;
    return recent;
  };
  return {
    ids,
    get more() {
      return more;
    },
    keep,
  };
}

function isRecent(r: StatusRow, since: Date): boolean {
  if (r.state !== 'done' && r.state !== 'failed') return true;
  const last = r.lastOutputAt ?? r.endsAt;
  return !last || new Date(last).getTime() >= since.getTime();
}
