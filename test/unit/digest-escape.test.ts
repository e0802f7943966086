import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';

import { anchor, esc, escCode, fragment, num, oneOf, token } from '../../src/core/digest/escape.js';
import { CSP, digestHtml } from '../../src/core/digest/html.js';
import { cspHash, sha256 } from '../../src/core/digest/sha256.js';
import { DIGEST_CSS } from '../../src/core/digest/style.js';
import type { DigestRun } from '../../src/core/digest/types.js';
import { localTime } from '../../src/core/local-time.js';
import { nightDigest } from './digest-night.js';

// The digest page's escape helpers, one context each, and the page made from records an agent
// rewrote: values of the wrong kind or outside their closed set never reach the markup as they are.

const UTC = localTime('UTC');
const METAREFRESH = '"><meta http-equiv="refresh" content="0;url=http://127.0.0.1:1/">';

describe('esc: element text and quoted attribute values', () => {
  test.each<{ value: unknown; want: string }>([
    { value: 'plain text', want: 'plain text' },
    {
      value: METAREFRESH,
      want: '&quot;&gt;&lt;meta http-equiv=&quot;refresh&quot; content=&quot;0;url=http://127.0.0.1:1/&quot;&gt;',
    },
    { value: '<script>alert(1)</script>', want: '&lt;script&gt;alert(1)&lt;/script&gt;' },
    { value: "<img src=x onerror='alert(1)'>", want: '&lt;img src=x onerror=&#39;alert(1)&#39;&gt;' },
    { value: '</style><svg onload=alert(1)>', want: '&lt;/style&gt;&lt;svg onload=alert(1)&gt;' },
    { value: 'a & b &amp; c', want: 'a &amp; b &amp;amp; c' },
    { value: '\x1b]52;c;aGk=\x07 \u202eevil', want: '\\x1b]52;c;aGk=\\x07 \\u202eevil' },
    { value: 42, want: '42' },
    { value: null, want: '' },
    { value: undefined, want: '' },
    { value: { toString: () => '<b>' }, want: '&lt;b&gt;' },
  ])('$value', ({ value, want }) => {
    expect(esc(value)).toBe(want);
  });
});

describe('escCode: text with `command` spans', () => {
  test.each<{ value: unknown; want: string }>([
    { value: 'run `overnight continue x`', want: 'run <code>overnight continue x</code>' },
    { value: '`a` and `b`', want: '<code>a</code> and <code>b</code>' },
    { value: 'an unpaired ` stays', want: 'an unpaired ` stays' },
    { value: '`a` then ` alone', want: '<code>a</code> then ` alone' },
    { value: '`<script>alert(1)</script>`', want: '<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>' },
    {
      value: '`</code><img src=x onerror=alert(1)>`',
      want: '<code>&lt;/code&gt;&lt;img src=x onerror=alert(1)&gt;</code>',
    },
    { value: '`\x1b[2J`', want: '<code>\\x1b[2J</code>' },
    { value: null, want: '' },
  ])('$value', ({ value, want }) => {
    expect(escCode(value)).toBe(want);
  });

  test('"Needs you" on the page shows a command as code, never as backticks', () => {
    const night = nightDigest();
    const run = {
      ...night.runs[1],
      reason: 'no report: the synthesis ended without REPORT.md; run `overnight continue <x>`',
    } as DigestRun;
    const html = digestHtml({ ...night, runs: [run] }, UTC);
    const needs = /<p class="needs">.*?<\/p>/.exec(html)?.[0] ?? '';
    expect(needs).toContain('<code>overnight continue &lt;x&gt;</code>');
    expect(needs).not.toContain('`');
  });
});

describe('oneOf: class names and data-* values from a closed set', () => {
  const STATES = ['done', 'failed', 'unknown'] as const;
  test.each<{ value: unknown; want: string }>([
    { value: 'done', want: 'done' },
    { value: 'failed', want: 'failed' },
    { value: 'DONE', want: 'unknown' },
    { value: 'done x', want: 'unknown' },
    { value: METAREFRESH, want: 'unknown' },
    { value: 'done"><meta', want: 'unknown' },
    { value: ['done'], want: 'unknown' },
    { value: 7, want: 'unknown' },
    { value: null, want: 'unknown' },
  ])('$value', ({ value, want }) => {
    expect(oneOf(value, STATES, 'unknown')).toBe(want);
  });
});

describe('num, anchor and fragment', () => {
  test.each<{ value: unknown; want: number }>([
    { value: 3, want: 3 },
    { value: -1.5, want: -1.5 },
    { value: '3"><script>', want: 0 },
    { value: Number.NaN, want: 0 },
    { value: Number.POSITIVE_INFINITY, want: 0 },
    { value: null, want: 0 },
  ])('num($value)', ({ value, want }) => {
    expect(num(value)).toBe(want);
  });
  test.each<{ value: unknown; want: string }>([
    { value: '2026-11-21-2315-survey', want: 'run-2026-11-21-2315-survey' },
    { value: METAREFRESH, want: 'run-___meta_http-equiv__refresh__content__0_url_http___127.0.0.1_1___' },
    { value: 'javascript:alert(1)', want: 'run-javascript_alert_1_' },
  ])('anchor($value)', ({ value, want }) => {
    expect(anchor('run', value)).toBe(want);
    expect(token(value)).toBe(want.slice('run-'.length));
    expect(fragment('run', value)).toBe(`#${want}`);
  });
});

describe('the page policy', () => {
  test.each(['', 'abc', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'ü€😀'.repeat(300), DIGEST_CSS])(
    'sha256 of %#: as node:crypto has it',
    (text) => {
      const want = createHash('sha256').update(text).digest();
      expect(Buffer.from(sha256(new TextEncoder().encode(text))).equals(want)).toBe(true);
      expect(cspHash(text)).toBe(`'sha256-${want.toString('base64')}'`);
    },
  );

  test('no script, no request, no form, no base; the one stylesheet by hash', () => {
    const directives = Object.fromEntries(CSP.split('; ').map((d) => [d.split(' ')[0], d]));
    expect(directives).toMatchObject({
      'default-src': "default-src 'none'",
      'style-src': `style-src ${cspHash(DIGEST_CSS)}`,
      'script-src': "script-src 'none'",
      'form-action': "form-action 'none'",
      'base-uri': "base-uri 'none'",
    });
    // Nothing from data goes into the stylesheet, and it cannot end its own element.
    expect(DIGEST_CSS).not.toMatch(/<|>\s*<|\\/);
  });
});

describe('a page made from records an agent rewrote', () => {
  const night = nightDigest();
  const base = night.runs[0] as DigestRun;
  const hostile = {
    ...base,
    id: `2026-11-21-2240-x${METAREFRESH}`,
    state: `failed ${METAREFRESH}`,
    costUsd: `1${METAREFRESH}`,
    restarts: METAREFRESH,
    maxRestarts: METAREFRESH,
    findings: METAREFRESH,
    warnings: METAREFRESH,
    timeline: base.timeline.map((e) =>
      e.kind === 'session'
        ? { ...e, mode: METAREFRESH, session: METAREFRESH, end: { ...e.end, kind: METAREFRESH } }
        : e.kind === 'wait'
          ? { ...e, for: METAREFRESH }
          : e.kind === 'finish'
            ? { ...e, outcome: METAREFRESH }
            : e,
    ),
    questions: base.questions.map((q) => ({ ...q, priority: METAREFRESH })),
  } as unknown as DigestRun;
  const html = digestHtml({ ...night, runs: [hostile] }, UTC);

  test('no value lands in markup: states, modes, ends, waits, outcomes and priorities fall back', () => {
    expect(html).not.toContain('<meta http-equiv="refresh"');
    expect(html.match(/<meta http-equiv=/g)).toHaveLength(1);
    expect(html).toContain('class="run state-unknown"');
    expect(html).toContain('data-state="unknown"');
    expect(html).toContain('<span class="badge">UNKNOWN</span>');
    expect(html).toContain('class="bar s-unknown end-unknown"');
    expect(html).toContain('data-session="0"');
    expect(html).toContain('class="w-other"');
    expect(html).toContain('m-finish m-unknown');
    expect(html).toContain('data-priority="unknown"');
    // Every class and data-* value is words of letters, digits and dashes.
    for (const m of html.matchAll(/\s(class|data-[a-z]+)="([^"]*)"/g))
      expect(m[2]).toMatch(/^[A-Za-z0-9 ._-]*$/);
  });
});
