import type { Stats } from 'node:fs';

import { readHead } from '../adapters/files.js';
import { runExists } from '../adapters/store.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunState } from '../core/run/types.js';
import type { ByteSpan } from '../core/text.js';
import { parseFinal, parseFinalDoc, type FinalRow } from './final-row.js';
import { rowOfText, type CachedRow, type RowCache } from './row-cache.js';
import { countFindings, countQuestions, type StatusRow } from './rows.js';

// A finished run's row for the dashboard: from its summary, written once, or from status's row
// cache, and its counts made again when the person changed what they count.

/**
 * A finished run's row as `status --json` prints it, kept as that text by the row cache and
 * printed without being made again: only what filters it is at hand.
 */
export class PrintedRow {
  constructor(
    readonly id: string,
    readonly state: RunState,
    readonly text: ByteSpan,
  ) {}
}

/** A cached row: its text, when it is printed as it was, or made and checked; null if it is not one. */
export function fromCache(
  cached: CachedRow,
  id: string,
  same: boolean,
  printed: boolean,
  runsRoot: string,
): StatusRow | PrintedRow | null {
  // Printed as it was, unless status adds to it (a repository's commits) or drops a link.
  if (same && printed && !cached.repo && (!cached.continuedBy || runExists(runsRoot, cached.continuedBy)))
    return new PrintedRow(id, cached.state, cached.text);
  return rowOfText(cached.text, id);
}

/** The row with its counts made again, kept with the stamp of what was counted. */
export function recounted(
  id: string,
  paths: RunPaths,
  row: StatusRow,
  stamp: string,
  cache: RowCache | null,
  records: Stats | null,
): StatusRow {
  row.findings = countFindings(paths.findings);
  row.questions = countQuestions(paths);
  // The next status counts only what changes from here.
  if (cache && records) cache.put(id, records, row, stamp);
  return row;
}

/** A summary is a few kilobytes; one larger than this was not written by overnight. */
const FINAL_MAX_BYTES = 1024 * 1024;

/** The finished run's summary: null when there is none (or it is torn mid-write), else checked. */
export function readFinal(id: string, paths: RunPaths): ReturnType<typeof parseFinal> | null {
  let text: string | null;
  try {
    text = readHead(paths.final, FINAL_MAX_BYTES + 1);
  } catch {
    return null;
  }
  if (!text) return null;
  if (text.length > FINAL_MAX_BYTES) return { bad: 'is larger than a summary can be' };
  return parseFinal(text, id);
}

/**
 * The row a summary says, where the run is now (an archived run's summary was written before it
 * moved), and the stamp of its counts. A summary without the run's directory (an earlier
 * version's) gets it in its place in the row's order, where a row made from the cache's text has
 * it: the row printed is the same either way.
 */
export function summaryRow(
  summary: FinalRow,
  id: string,
  workspace: string,
): { row: StatusRow; stamp?: string } {
  const { countsStamp: stamp, ...rest } = summary;
  const row: StatusRow = { ...rest, workspace };
  if (!('workspace' in rest)) {
    const got = parseFinalDoc(row, id);
    if ('row' in got) return { row: got.row, ...(stamp !== undefined ? { stamp } : {}) };
  }
  return { row, ...(stamp !== undefined ? { stamp } : {}) };
}
