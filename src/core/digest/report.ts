// The first lines of a REPORT.md, for the digest: what the agent put first is what it found. Pure.

/** Up to `max` non-blank lines from the start; a line cut by the read's end is left out. */
export function reportHead(text: string, max = 6, complete = true): string[] {
  const lines = text.split('\n');
  if (!complete) lines.pop();
  return lines
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(0, max);
}
