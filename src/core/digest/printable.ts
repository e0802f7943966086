// Text from the agent, the task or files made safe to print: no control sequences reach the
// terminal (or the page). A local, minimal version: issue 10 adds the project's one function for
// this to core/text.ts, and this file then gives way to it.

// Whole escape sequences first (CSI, OSC, other ESC pairs), so no residue like `[31m` is left.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const SEQUENCES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g;
// C0 but tab and newline, DEL, C1, and the bidirectional overrides that reorder what is shown.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** The text without control characters; tabs become spaces, newlines stay. */
export function printable(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, '').replace(/\t/g, '  ');
}

/** One printable line: newlines and runs of spaces flattened, cut to `max` characters. */
export function printableLine(text: string, max = 200): string {
  const flat = printable(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
