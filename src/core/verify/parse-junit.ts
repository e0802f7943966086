import { counts, Names } from './lines.js';
import type { TestCounts } from './types.js';

// JUnit XML (`<testcase name=… classname=…>` with `<failure`/`<error` inside), from a file the
// command writes or from its output. Scanned once with indexOf: no regular expression backtracks
// over the document.

const MAX_XML = 4 * 1024 * 1024;

function attr(tag: string, name: string): string | null {
  const at = tag.indexOf(` ${name}="`);
  if (at < 0) return null;
  const from = at + name.length + 3;
  const to = tag.indexOf('"', from);
  return to < 0 ? null : unescape(tag.slice(from, to));
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
  if (!text.includes('<testcase')) return null;
  const names = new Names();
  let passed = 0;
  let failed = 0;
  let at = text.indexOf('<testcase');
  while (at >= 0) {
    const end = text.indexOf('>', at);
    if (end < 0) break;
    const tag = text.slice(at, end + 1);
    const next = text.indexOf('<testcase', end);
    const selfClosing = tag.endsWith('/>');
    const body = selfClosing ? '' : text.slice(end + 1, next < 0 ? text.length : next);
    const close = body.indexOf('</testcase>');
    const inner = close < 0 ? body : body.slice(0, close);
    const name = attr(tag, 'name') ?? '(unnamed)';
    const cls = attr(tag, 'classname');
    if (inner.includes('<failure') || inner.includes('<error')) {
      failed++;
      names.add(cls ? `${cls} ${name}` : name);
    } else if (!inner.includes('<skipped')) passed++;
    at = next;
  }
  return counts('junit', passed, failed, names);
}
