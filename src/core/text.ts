/** Text flattened to one line and cut to `max` characters, for reasons and log lines. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Control characters (a terminal's escape sequences among them) shown as `?`: safe to print. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
