/** Text flattened to one line and cut to `max` characters, for reasons and log lines. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * What a terminal would obey instead of showing: C0 controls but newline and tab (ESC starts OSC
 * 52 clipboard writes, title changes, screen clears, hidden text), DEL, the C1 controls (U+009B is
 * a CSI of its own), and the bidirectional controls that reorder what is shown.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const visible = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Text from the agent, the task or a file made safe to print on a terminal: every control
 * character but newline and tab is shown as an escape (`\x1b`, `\x9b`, `\u202e`), never obeyed.
 */
export function safeText(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** safeText for a line of a table or a details block: a newline in it becomes a space. */
export function safeLine(text: string): string {
  return safeText(text.replace(/\n/g, ' '));
}

/**
 * JSON for a terminal as much as for a program: JSON.stringify escapes C0 controls but leaves DEL,
 * C1 and bidi controls raw; they are written as `\u` escapes here, which JSON reads back the same.
 */
export function safeJson(value: unknown, indent?: number): string {
  return safeJsonText(JSON.stringify(value, null, indent));
}

/** JSON text with DEL, C1 and bidi controls written as `\u` escapes (safeJson's second half). */
export function safeJsonText(json: string): string {
  return json.replace(
    /[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Single bytes no text overnight writes holds raw: C0 controls but newline, and DEL. */
const RAW_BYTES = [...Array(32).keys(), 0x7f].filter((c) => c !== 0x0a);

/**
 * Whether UTF-8 bytes hold a control raw: a C0 control but newline, or a character safeJsonText
 * escapes (DEL, C1, bidi). Looked for natively, byte by byte or by each character's lead byte:
 * status checks a megabyte of its own cached JSON so before printing it.
 */
export function hasRawControl(bytes: Buffer): boolean {
  for (const c of RAW_BYTES) if (bytes.includes(c)) return true;
  // C1, U+0080 to U+009F: C2 80 to C2 9F.
  for (let i = bytes.indexOf(0xc2); i >= 0; i = bytes.indexOf(0xc2, i + 1)) {
    const next = bytes[i + 1] as number;
    if (next >= 0x80 && next <= 0x9f) return true;
  }
  // U+061C: D8 9C.
  for (let i = bytes.indexOf(0xd8); i >= 0; i = bytes.indexOf(0xd8, i + 1))
    if (bytes[i + 1] === 0x9c) return true;
  // U+200E, U+200F, U+202A to U+202E: E2 80 8E, 8F, AA to AE; U+2066 to U+2069: E2 81 A6 to A9.
  for (let i = bytes.indexOf(0xe2); i >= 0; i = bytes.indexOf(0xe2, i + 1)) {
    const a = bytes[i + 1] as number;
    const b = bytes[i + 2] as number;
    if (a === 0x80 && (b === 0x8e || b === 0x8f || (b >= 0xaa && b <= 0xae))) return true;
    if (a === 0x81 && b >= 0xa6 && b <= 0xa9) return true;
  }
  return false;
}

/**
 * One item of a list as `safeJson(list, 2)` prints it, without its comma: kept as text, an item
 * is printed again without being made again (status's finished runs, see read/row-cache.ts).
 */
export function jsonListItem(value: unknown): string {
  // JSON has no raw newline inside a string: every newline is the layout's.
  return safeJsonText(`  ${JSON.stringify(value, null, 2).replaceAll('\n', '\n  ')}`);
}

/**
 * Bytes `start` to `end` of `bytes`, not copied: status's finished rows are pieces of one file,
 * and a view made for each of a thousand (a typed array, made while the code is cold) cost more
 * than printing them.
 */
export interface ByteSpan {
  readonly bytes: Uint8Array;
  readonly start: number;
  readonly end: number;
}

/** A span's bytes as text. */
export const spanText = (s: ByteSpan): string =>
  Buffer.from(s.bytes.buffer, s.bytes.byteOffset + s.start, s.end - s.start).toString('utf8');

/**
 * The list of these items (jsonListItem's, safe already, as text or in UTF-8), in UTF-8, exactly
 * as safeJson(list, 2) prints it. Items that follow each other in one buffer with a comma and a
 * newline between them (status's row cache) are copied as one piece.
 */
export function jsonList(items: readonly (string | ByteSpan)[]): Uint8Array {
  if (items.length === 0) return Buffer.from('[]');
  const parts: Uint8Array[] = [OPEN];
  // A piece of one buffer being made longer: the buffer, where the piece starts and ends.
  let piece: { bytes: Uint8Array; start: number; end: number } | null = null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string | ByteSpan;
    if (typeof item !== 'string' && piece && follows(piece, item)) {
      piece.end = item.end;
      continue;
    }
    if (piece) parts.push(piece.bytes.subarray(piece.start, piece.end));
    piece = null;
    if (i > 0) parts.push(COMMA);
    if (typeof item === 'string') parts.push(Buffer.from(item));
    else piece = { bytes: item.bytes, start: item.start, end: item.end };
  }
  if (piece) parts.push(piece.bytes.subarray(piece.start, piece.end));
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** Whether `item` starts two bytes after the piece ends in its buffer, with a comma and newline between. */
function follows(piece: { bytes: Uint8Array; end: number }, item: ByteSpan): boolean {
  const { bytes, end } = piece;
  return item.bytes === bytes && item.start === end + 2 && bytes[end] === 0x2c && bytes[end + 1] === 0x0a;
}

const OPEN = Buffer.from('[\n');
const COMMA = Buffer.from(',\n');
const CLOSE = Buffer.from('\n]');

/** At most this many characters of a first line appear in tables and the details. */
export const HEADLINE_MAX = 100;

/**
 * The first line with any text, trimmed; found without splitting a megabyte brief into lines, and
 * in one pass (a pattern around `\S` rescans each line of spaces from every position).
 */
export function firstLine(text: string): string {
  const at = text.search(/\S/);
  if (at < 0) return '';
  const start = Math.max(text.lastIndexOf('\n', at), text.lastIndexOf('\r', at)) + 1;
  const ends = [text.indexOf('\n', at), text.indexOf('\r', at)].filter((i) => i >= 0);
  return text.slice(start, ends.length > 0 ? Math.min(...ends) : text.length).trim();
}

/**
 * A task (or any text) on one line, for a table or the details: its first line with any text, cut
 * to `max` characters (never inside one), and safe for a terminal. Whether more follows is the
 * caller's to say (`taskHasMore`), so a program reading `status --json` gets the line alone.
 */
export function headline(text: string, max = HEADLINE_MAX): string {
  const chars = Array.from(firstLine(text));
  return safeText(chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join(''));
}

/** `$1.25`; a cost below a cent is shown as such, not as nothing. */
export function money(usd: number): string {
  return usd > 0 && usd < 0.005 ? '<$0.01' : `$${usd.toFixed(2)}`;
}

/** `1 restart`, `3 restarts`, `2 tries`: a count and its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
