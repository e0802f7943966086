// Columns fitted to a terminal's width: text measured in terminal cells (a CJK character takes two,
// a combining mark none), cut with an ellipsis, flexible columns shrunk, optional ones dropped. Pure.
//
// Most tables are printable ASCII and the few symbols the board draws, one cell each. Only other
// text is measured by string-width, loaded when a table first needs it: its first use costs a
// command about 20 ms (ICU's segmenter and an emoji pattern), half of a status on 2 cores.

/** One cell a character: printable ASCII and the board's own symbols (`…`, `└`, `·`, `✓`, `✗`). */
const NARROW = /^[\x20-\x7e\u2026\u2514\u00b7\u2713\u2717]*$/;

let measure: ((text: string) => number) | null = null;
/** Text beyond NARROW was measured before the tables were loaded: the result is redone. */
let missed = false;

/** Loads string-width, once. */
export async function loadWidths(): Promise<void> {
  measure ??= (await import('string-width')).default;
}

/**
 * `format()`'s result, made with the Unicode tables loaded only when some text it measured needs
 * them: it is made again with them then (formatting is pure).
 */
export async function withWidths<T>(format: () => T): Promise<T> {
  missed = false;
  const first = format();
  if (!missed) return first;
  await loadWidths();
  return format();
}

export function width(text: string): number {
  if (NARROW.test(text)) return text.length;
  if (measure) return measure(text);
  missed = true;
  return text.length;
}

let segmenter: Intl.Segmenter | undefined;

/** The text cut to `max` cells, with `…` as its last cell when cut; never inside a character. */
export function truncate(text: string, max: number): string {
  if (width(text) <= max) return text;
  if (max <= 0) return '';
  if (NARROW.test(text)) return `${text.slice(0, max - 1)}…`;
  let out = '';
  let used = 0;
  segmenter ??= new Intl.Segmenter();
  for (const { segment } of segmenter.segment(text)) {
    const w = width(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** Padded with spaces to `cells` cells. */
export function pad(text: string, cells: number): string {
  return text + ' '.repeat(Math.max(0, cells - width(text)));
}

export interface Column {
  header: string;
  cells: string[];
  /** Shrinks (cut with `…`) down to this many cells before any column is dropped. */
  min?: number;
  /** Dropped when the table cannot fit otherwise: lower goes first. */
  drop?: number;
  /** Says nothing in any row (every cell zero or blank): an optional one goes before all others. */
  empty?: boolean;
}

export const GAP = 2;

/**
 * The columns kept and each one's width so the table fits `max` cells (null: no limit). Optional
 * columns with nothing to say go first; then flexible columns shrink, the last one first; then
 * optional columns go, lowest `drop` first.
 */
export function fitColumns(
  columns: readonly Column[],
  max: number | null,
): { column: Column; width: number }[] {
  let kept = columns.map((column) => ({
    column,
    width: Math.max(width(column.header), ...column.cells.map(width)),
  }));
  const total = () => kept.reduce((n, c) => n + c.width, 0) + GAP * (kept.length - 1);
  if (max === null) return kept;
  const droppable = [...kept].filter((c) => c.column.drop !== undefined);
  // Columns with nothing to say go first, before any column shrinks or one that says something goes.
  droppable.sort(
    (a, b) =>
      Number(b.column.empty === true) - Number(a.column.empty === true) ||
      (a.column.drop as number) - (b.column.drop as number),
  );
  while (total() > max && droppable[0]?.column.empty) {
    const next = droppable.shift();
    kept = kept.filter((c) => c !== next);
  }
  for (;;) {
    for (const c of [...kept].reverse()) {
      if (total() <= max) return kept;
      const min = c.column.min;
      if (min === undefined || c.width <= min) continue;
      c.width = Math.max(min, c.width - (total() - max));
    }
    if (total() <= max) return kept;
    const next = droppable.shift();
    if (!next) return kept;
    kept = kept.filter((c) => c !== next);
    // A dropped column frees room: the shrunk ones get it back, up to what they need.
    for (const c of kept) c.width = Math.max(width(c.column.header), ...c.column.cells.map(width));
  }
}

/** Text wrapped at spaces to lines of at most `max` cells (a word longer than that is cut). */
export function wrap(text: string, max: number | null): string[] {
  if (max === null || width(text) <= max) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (width(next) <= max) line = next;
    else {
      if (line) lines.push(line);
      line = truncate(word, max);
    }
  }
  if (line) lines.push(line);
  return lines;
}
