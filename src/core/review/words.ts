import type { Review } from './types.js';

// The review in words, beside the check's verdict: status, the digest, the notification. Pure.

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `review: concerns (3 findings, 1 high): <summary>` / `review did not finish: …`. */
export function reviewLine(r: Review, summaryMax = 160): string {
  if (!r.verdict) return `review did not finish: ${r.unfinished ?? 'no result'}`;
  const high = r.findings.filter((f) => f.severity === 'high' || f.severity === 'critical').length;
  const counts = `${plural(r.findings.length, 'finding')}${high > 0 ? `, ${high} high` : ''}`;
  const summary = r.summary.length > summaryMax ? `${r.summary.slice(0, summaryMax - 1)}…` : r.summary;
  return `review: ${r.verdict} (${counts})${summary ? `: ${summary}` : ''}`;
}

/** One line per finding: `high  src/a.js:12  the loop never ends`. */
export function findingLines(r: Review, max = 10): string[] {
  const lines = r.findings.slice(0, max).map((f) => {
    const where = f.file ? `${f.file}${f.line !== null ? `:${f.line}` : ''}  ` : '';
    return `${f.severity.padEnd(8)}${where}${f.text}`;
  });
  if (r.findings.length > max) lines.push(`… and ${r.findings.length - max} more`);
  return lines;
}

/** What the synthesis prompt says of the review, so the report can answer it. */
export function reviewNote(r: Review): string {
  if (!r.verdict) return `\nA reviewer was asked to read the night's work, but ${r.unfinished}.\n`;
  const findings = findingLines(r, 20)
    .map((l) => `- ${l}`)
    .join('\n');
  return (
    `\nA reviewer who did not write this work read it and says: ${r.verdict}. ${r.summary}\n` +
    (findings ? `Its findings:\n${findings}\n` : '') +
    'Answer them in the report: what you agree with, what you do not and why.\n'
  );
}
