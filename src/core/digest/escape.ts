import { safeText } from '../text.js';

// Values into HTML, one helper per context (HTML injection). Everything from the agent, the task
// or a file is escaped here and nowhere else, after its control characters are made visible
// (safeText, as on a terminal). Records are read back from files the agent may have written, so
// no helper trusts a value's static type: a `state` or `mode` may hold any string, or no string.
//
// - element text and quoted attribute values: esc(); text with `command` spans: escCode();
// - class names and data-* values: only from a closed set, oneOf(), never escaped into place;
//   a run id in data-run as a token() of letters, digits, dash and dot;
// - numbers in attributes (coordinates, counts): num();
// - links: fragments of the page itself, fragment(); the page links nowhere else;
// - CSS: none from data; the stylesheet and the legend's colours are constants (style.ts).

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Safe as element text and as a quoted attribute value (always quoted: the page has no unquoted
 * attribute), whatever `value` turns out to be.
 */
export function esc(value: unknown): string {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
  return safeText(text).replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/**
 * Element text whose `command` spans (overnight's own hints: "run `overnight continue x`") become
 * <code> elements; every piece is escaped by esc() first, so nothing in them is markup. A backtick
 * left without its pair stays a backtick. Linear: one split.
 */
export function escCode(value: unknown): string {
  const parts = esc(value).split('`');
  // An even count of parts means the last backtick has no pair: it is put back as it was.
  const tail = parts.length % 2 === 0 ? `\`${parts.pop() as string}` : '';
  return parts.map((p, i) => (i % 2 === 1 ? `<code>${p}</code>` : p)).join('') + tail;
}

/** `value` when it is one of `allowed`, else `fallback`: for class names and data-* values. */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value)
    ? (value as T)
    : fallback;
}

/** A finite number, else `fallback`: for numbers written into attributes and counts. */
export function num(value: unknown, fallback = 0): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** A run id (or any text) as a token: letters, digits, dash and dot; anything else becomes `_`. */
export function token(text: unknown): string {
  return String(text).replace(/[^A-Za-z0-9.-]/g, '_');
}

/** A run id (or any text) as a fragment id. */
export function anchor(prefix: string, text: unknown): string {
  return `${prefix}-${token(text)}`;
}

/** A link to a place on the page itself: the only kind of link the page has. */
export function fragment(prefix: string, text: unknown): string {
  return `#${anchor(prefix, text)}`;
}
