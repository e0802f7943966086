import { counts, Names, Outcomes } from './lines.js';
import type { TestCounts } from './types.js';

// JUnit XML (`<testcase name=… classname=…>` with `<failure`/`<error` inside), from a file the
// command writes or from its output. Scanned once with indexOf: no regular expression backtracks
// over the document.

const MAX_XML = 4 * 1024 * 1024;

/** An attribute of a start tag (`name="x"` or `name='x'`, any white space before it), unescaped. */
function attr(tag: string, name: string): string | null {
  const flat = tag.replace(/\s+/g, ' ');
  for (const quote of ['"', "'"]) {
    const at = flat.indexOf(` ${name}=${quote}`);
    if (at < 0) continue;
    const from = at + name.length + 3;
    const to = flat.indexOf(quote, from);
    return to < 0 ? null : unescape(flat.slice(from, to));
  }
  return null;
}

/** The next `<testcase` start tag at or after `from` (not `<testcases`), or -1. */
function nextCase(text: string, from: number): number {
  let at = text.indexOf('<testcase', from);
  while (at >= 0 && !/[\s/>]/.test(text.charAt(at + 9))) at = text.indexOf('<testcase', at + 9);
  return at;
}

function unescape(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

export function parseJunit(xml: string): TestCounts | null {
  const text = xml.length > MAX_XML ? xml.slice(0, MAX_XML) : xml;
  if (nextCase(text, 0) < 0) return null;
  const names = new Names();
  const tests = new Outcomes();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let at = nextCase(text, 0);
  while (at >= 0) {
    const end = text.indexOf('>', at);
    if (end < 0) break;
    const tag = text.slice(at, end + 1);
    const next = nextCase(text, end);
    const selfClosing = tag.endsWith('/>');
    const body = selfClosing ? '' : text.slice(end + 1, next < 0 ? text.length : next);
    const close = body.indexOf('</testcase>');
    const inner = close < 0 ? body : body.slice(0, close);
    const name = attr(tag, 'name') ?? '(unnamed)';
    const cls = attr(tag, 'classname');
    const full = cls ? `${cls} ${name}` : name;
    if (inner.includes('<failure') || inner.includes('<error')) {
      failed++;
      names.add(full);
      tests.add(full, 'failed');
    } else if (inner.includes('<skipped')) {
      skipped++;
      tests.add(full, 'skipped');
    } else {
      passed++;
      tests.add(full, 'passed');
    }
    at = next;
  }
  // A file cut at its size limit names only some: counted, not accounted for by name.
  return counts('junit', passed, failed, names, skipped, xml.length > MAX_XML ? null : tests);
}
