import type { Outcome, OutcomeCounts, TestCounts } from './types.js';

// Shared by the output parsers: bounded lines, bounded name lists. Every parser reads the text
// once, line by line, with anchored patterns that cannot backtrack: linear in the output.

/** Output parsed at most (its tail): a check's log is bounded (8 MB), this bounds the work too. */
export const PARSE_MAX_BYTES = 8 * 1024 * 1024;
/** Failing names kept, and the length of each. */
export const MAX_NAMES = 200;
export const MAX_NAME = 200;
const MAX_LINE = 4096;

/** The output's lines, colour codes removed, each cut to a sane length. */
export function outputLines(text: string): string[] {
  const tail = text.length > PARSE_MAX_BYTES ? text.slice(-PARSE_MAX_BYTES) : text;
  // eslint-disable-next-line no-control-regex
  const plain = tail.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l.replace(/\r$/, '')));
}

/** Collects failing names in order, without duplicates, bounded. */
export class Names {
  private readonly seen = new Set<string>();
  add(name: string): void {
    const n = name.trim().slice(0, MAX_NAME);
    if (n !== '' && this.seen.size < MAX_NAMES) this.seen.add(n);
  }
  get list(): string[] {
    return [...this.seen];
  }
  get size(): number {
    return this.seen.size;
  }
}

/** Tests kept by name: beyond this, a check is accounted for by its counts alone. */
export const MAX_TESTS = 20_000;

/** Every test of one run by name with its outcomes, bounded; `complete` false past MAX_TESTS. */
export class Outcomes {
  private readonly byName = new Map<string, OutcomeCounts>();
  private over = false;
  add(name: string, outcome: Outcome): void {
    const n = name.trim().slice(0, MAX_NAME);
    if (n === '') return;
    let c = this.byName.get(n);
    if (!c) {
      if (this.byName.size >= MAX_TESTS) {
        this.over = true;
        return;
      }
      this.byName.set(n, (c = [0, 0, 0]));
    }
    c[outcome === 'passed' ? 0 : outcome === 'failed' ? 1 : 2]++;
  }
  get size(): number {
    return this.byName.size;
  }
  /** The tests by name, or null when some were left out (or none were named). */
  record(): Record<string, OutcomeCounts> | null {
    return this.over || this.byName.size === 0 ? null : Object.fromEntries(this.byName);
  }
}

export function counts(
  format: string,
  passed: number,
  failed: number,
  names: Names,
  skipped = 0,
  tests: Outcomes | null = null,
): TestCounts {
  return { format, passed, failed, skipped, failures: names.list, tests: tests?.record() ?? null };
}

/** A whole number from a matched group (bounded digits), else 0. */
export function num(text: string | undefined): number {
  return text ? Number(text.slice(0, 9)) : 0;
}

/** `name (1.2ms)` or `name 12ms` → `name`: the runner's duration suffix cut off, without a regex scan. */
export function withoutDuration(text: string): string {
  const t = text.trimEnd();
  if (t.endsWith(')')) {
    const open = t.lastIndexOf(' (');
    if (open >= 0 && /^[\d.]{1,12}m?s$/.test(t.slice(open + 2, -1))) return t.slice(0, open);
  }
  const space = t.lastIndexOf(' ');
  if (space >= 0 && /^\d{1,9}ms$/.test(t.slice(space + 1))) return t.slice(0, space);
  return t;
}

/** The number before `word` in a summary (`3 passed`), 0 when absent; one indexOf, a short look back. */
export function countOf(summary: string, word: string): number {
  const at = summary.indexOf(` ${word}`);
  const before = at < 0 ? '' : summary.slice(Math.max(0, at - 9), at);
  const m = /(\d{1,9})$/.exec(before);
  return m ? Number(m[1]) : 0;
}
