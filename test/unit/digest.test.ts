import { describe, expect, test } from 'vitest';

import { digestHtml } from '../../src/core/digest/html.js';
import { reportHead } from '../../src/core/digest/report.js';
import { digestNeed, openQuestions, orderRuns, summarize } from '../../src/core/digest/summary.js';
import { spanOf, ticks } from '../../src/core/digest/svg.js';
import { digestText } from '../../src/core/digest/text.js';
import type { DigestRun } from '../../src/core/digest/types.js';
import { parseSince } from '../../src/core/digest/window.js';
import { localTime } from '../../src/core/local-time.js';
import { at } from './builders.js';
import { nightDigest, NOW } from './digest-night.js';

const UTC = localTime('UTC');
/** C0 but tab and newline, DEL and C1: what must never reach a terminal. */
const hasControl = (text: string) =>
  [...text].some((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 && c !== '\t' && c !== '\n') || (code >= 0x7f && code <= 0x9f);
  });
const runs = () => nightDigest().runs;
const run = (over: Partial<DigestRun>): DigestRun => ({ ...(runs()[0] as DigestRun), ...over });

describe('the digest summary', () => {
  test('a night of one done, one failed and one running run → its counts and total cost', () => {
    expect(summarize(runs())).toEqual({
      runs: 3,
      done: 1,
      failed: 1,
      live: 1,
      needsYou: 1,
      openQuestions: 5,
      costUsd: 7.49,
    });
  });

  test.each<{ name: string; run: DigestRun; want: string | null }>([
    { name: 'finished with a report', run: run({}), want: null },
    {
      name: 'failed',
      run: run({ state: 'failed', reason: 'circuit breaker: 5 restarts' }),
      want: 'circuit breaker: 5 restarts',
    },
    {
      name: 'done without a report',
      run: run({ report: null, reason: 'no report: the synthesis ended' }),
      want: 'no report: the synthesis ended',
    },
    {
      name: 'stopped by the person, no report',
      run: run({ report: null, reason: 'stopped by user' }),
      want: null,
    },
    {
      name: 'a file it cannot use',
      run: run({ problem: 'run.yaml is corrupt' }),
      want: 'a file cannot be used: run.yaml is corrupt',
    },
    {
      name: 'waiting on paid extra usage',
      run: run({ state: 'waiting', cause: 'overage', reason: 'waiting: paid extra usage: …' }),
      want: 'on paid extra usage',
    },
    {
      name: 'running on paid extra usage it allows',
      run: run({ state: 'running', report: null, onOverage: true }),
      want: 'on paid extra usage',
    },
    {
      name: 'notifications about it failing (as status says)',
      run: run({ notifyFailing: true }),
      want: 'notifications failing',
    },
    {
      name: 'done, its report since removed',
      run: run({ report: null }),
      want: 'no report (finished: REPORT.md written by the synthesis)',
    },
    { name: 'running', run: run({ state: 'running', report: null, timeline: [] }), want: null },
  ])('$name → $want', ({ run, want }) => {
    expect(digestNeed(run)).toBe(want);
  });

  test('runs that need the person first, then live ones, then the rest → by state, then start time', () => {
    expect(orderRuns(runs()).map((r) => r.state)).toEqual(['failed', 'running', 'done']);
  });

  test('open questions of every run → highest priority first, answered ones left out', () => {
    expect(openQuestions(runs()).map((q) => `${q.priority} ${q.run.slice(16)}`)).toEqual([
      'high survey-crdt',
      'high benchmark-sync',
      'medium migrate-billing',
      'low survey-crdt',
      'unknown benchmark-sync',
    ]);
  });
});

describe('digestText', () => {
  const lines = digestText(nightDigest(), UTC);

  test('the header says the window and the night in one line each', () => {
    expect(lines.slice(0, 2)).toEqual([
      'overnight digest · the last 24h · Sun 22 Nov 2026, 07:45 (UTC+00:00)',
      '3 runs: 1 done, 1 failed, 1 still going · 1 needs you · 5 open questions · $7.49 spent',
    ]);
  });

  test('each run: outcome, what needs the person, the report head and the night', () => {
    const from = lines.indexOf(
      '✓ DONE  2026-11-21-2315-survey-crdt  ·  $4.12 · 8h7m · 1 restart of 5 · 7 findings',
    );
    expect(lines.slice(from, from + 8)).toEqual([
      '✓ DONE  2026-11-21-2315-survey-crdt  ·  $4.12 · 8h7m · 1 restart of 5 · 7 findings',
      '  task:       Survey CRDT libraries for offline sync',
      '  outcome:    finished: REPORT.md written by the synthesis',
      '  report:     /home/me/overnight-runs/2026-11-21-2315-survey-crdt/REPORT.md',
      '    │ # CRDT libraries for offline sync',
      // Cut to fit a 100-column terminal.
      '    │ Yjs is the safest choice today: the largest ecosystem, steady releases, and good offline suppor…',
      '    │ Automerge 3 closes the gap on memory use; worth a second look in six months.',
      '  questions:  2 open, in /home/me/overnight-runs/2026-11-21-2315-survey-crdt/questions.md',
    ]);
    expect(lines).toContain(
      '  needs you:  circuit breaker: 5 restarts, last exit 1: API Error: 500 Internal server error',
    );
    expect(lines).toContain('    03:10  waiting until 04:05:00: five_hour limit; it resets at 04:00');
  });

  test('the questions last, ranked, each with its best guess and run', () => {
    const from = lines.indexOf('Open questions, highest priority first (5)');
    expect(lines.slice(from + 1, from + 5)).toEqual([
      '  high     Which sync protocol should the client speak?',
      '           best guess: y-protocols over WebSocket · 2026-11-21-2315-survey-crdt',
      '  high     <script>alert("pwned")</script> Is \\x1b[31mred\\x1b[0m text allowed?',
      '           best guess: <b>bold</b> & "quoted" · 2026-11-22-0030-benchmark-sync',
    ]);
  });

  test('no control character reaches the terminal', () => {
    expect(lines.filter(hasControl)).toEqual([]);
  });

  test.each([
    { name: 'a follow-up', over: { continues: 'a' }, want: ['  nights:     continues a'] },
    {
      name: 'the middle night',
      over: { continues: 'a', continuedBy: 'c' },
      want: ['  nights:     continues a · continued by c'],
    },
    { name: 'a night of its own', over: {}, want: [] },
  ])('how the nights link: $name → $want', ({ over, want }) => {
    const text = digestText({ ...nightDigest(), runs: [run(over)] }, UTC);
    expect(text.filter((l) => l.startsWith('  nights:'))).toEqual(want);
    expect(digestHtml({ ...nightDigest(), runs: [run(over)] }, UTC).includes('<p class="nights mono">')).toBe(
      want.length > 0,
    );
  });

  test('an empty window says so', () => {
    expect(digestText({ ...nightDigest(), runs: [] }, UTC)).toEqual([
      'overnight digest · the last 24h · Sun 22 Nov 2026, 07:45 (UTC+00:00)',
      'No run ended or changed in the last 24h.',
    ]);
  });
});

describe('digestHtml', () => {
  const html = digestHtml(nightDigest(), UTC);

  test('one self-contained page: a policy that loads nothing, no script, links only within the page', () => {
    expect(html).toContain(`content="default-src 'none'; style-src 'sha256-`);
    expect(html).not.toMatch(/unsafe-inline|\sstyle="/);
    expect(html).not.toMatch(/<script|<img|<link|<iframe|<[a-z]+[^>]*\ssrc=/i);
    expect([...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).filter((h) => !h?.startsWith('#'))).toEqual(
      [],
    );
    expect(html).not.toMatch(/https?:\/\//);
  });

  test('text from the agent and the task is escaped, control characters shown as escapes', () => {
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; Is \\x1b[31mred\\x1b[0m text allowed?',
    );
    expect(html).toContain('&lt;/div&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(hasControl(html)).toBe(false);
  });
});

describe('parseSince', () => {
  test.each<{ text: string; want: { since: Date; label: string } }>([
    { text: '24h', want: { since: new Date(NOW.getTime() - 86400_000), label: 'the last 24h' } },
    { text: '3d', want: { since: new Date(NOW.getTime() - 3 * 86400_000), label: 'the last 3d' } },
    { text: '90m', want: { since: at('06:15:00'), label: 'the last 90m' } },
    {
      text: '2026-11-21T18:00:00Z',
      want: { since: new Date('2026-11-21T18:00:00Z'), label: 'since Sat 21 Nov 2026, 18:00 (UTC+00:00)' },
    },
  ])('"$text" → $want.label', ({ text, want }) => {
    expect(parseSince(text, NOW, UTC)).toEqual(want);
  });

  test.each<{ text: string; want: RegExp }>([
    { text: 'yesterday', want: /^--since "yesterday" is not a duration such as 12h, 24h or 3d/ },
    { text: '0s', want: /^--since "0s" is not/ },
    { text: '2026-12-01T00:00:00Z', want: /in the past$/ },
  ])('"$text" → an error naming it', ({ text, want }) => {
    expect(parseSince(text, NOW, UTC)).toEqual({ error: expect.stringMatching(want) });
  });
});

describe('reportHead', () => {
  test.each<{ name: string; text: string; complete: boolean; want: string[] }>([
    {
      name: 'blank lines skipped',
      text: '\n# Title\n\nFirst.\n\nSecond.\n',
      complete: true,
      want: ['# Title', 'First.', 'Second.'],
    },
    {
      name: 'at most six lines',
      text: 'a\nb\nc\nd\ne\nf\ng\n',
      complete: true,
      want: ['a', 'b', 'c', 'd', 'e', 'f'],
    },
    {
      name: 'a line cut by the read dropped',
      text: '# Title\nhalf a li',
      complete: false,
      want: ['# Title'],
    },
  ])('$name → $want', ({ text, complete, want }) => {
    expect(reportHead(text, 6, complete)).toEqual(want);
  });
});

describe('the timeline picture', () => {
  test.each<{ name: string; hours: number; want: { ticks: number; step: number } }>([
    { name: 'an 8-hour night', hours: 8, want: { ticks: 5, step: 7200 } },
    { name: 'a 3-hour night', hours: 3, want: { ticks: 7, step: 1800 } },
    { name: 'a 20-second test night', hours: 20 / 3600, want: { ticks: 5, step: 5 } },
  ])('$name → $want.ticks ticks, every $want.step s', ({ hours, want }) => {
    const from = at('00:00:00');
    const t = ticks({ from, to: new Date(from.getTime() + hours * 3600_000) });
    expect({ ticks: t.at.length, step: t.step }).toEqual(want);
  });

  test('a live run is drawn to its end time; a finished one to its finish', () => {
    const [billing, bench] = orderRuns(runs());
    expect(spanOf(bench as DigestRun, NOW)).toEqual({ from: at('00:30:00'), to: at('08:30:00') });
    expect(spanOf(billing as DigestRun, NOW).to).toEqual(at('01:58:00'));
  });
});
