import stringWidth from 'string-width';

// Columns fitted to a terminal's width: text measured in terminal cells (a CJK character takes two,
// a combining mark none), cut with an ellipsis, flexible columns shrunk, optional ones dropped. Pure.

export const width = (text: string): number => stringWidth(text);

const segmenter = new Intl.Segmenter();

/** The text cut to `max` cells, with `…` as its last cell when cut; never inside a character. */
export function truncate(text: string, max: number): string {
  if (width(text) <= max) return text;
  if (max <= 0) return '';
  let out = '';
  let used = 0;
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
