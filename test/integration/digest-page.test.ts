import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { digestHtml } from '../../src/core/digest/html.js';
import { localTime } from '../../src/core/local-time.js';
import { launchBrowser, screenshotDir, type Browser } from '../helpers/browser.js';
import { nightDigest } from '../unit/digest-night.js';

// The digest page of a whole night in headless Chromium: what a person sees, read from the DOM.

let browser: Browser;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ovt-page-'));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Read in the page (the tests' TypeScript has no DOM types): each run card's look, by its state.
interface Look {
  needs: boolean;
  border: string;
  badge: string;
  badgeText: string;
}
const LOOK = `Object.fromEntries([...document.querySelectorAll('article.run')].map((e) => {
  const badge = e.querySelector('.badge');
  return [e.dataset.state, { needs: !!e.querySelector('.needs'),
    border: getComputedStyle(e).borderLeftColor, badge: getComputedStyle(badge).color,
    badgeText: badge.textContent }];
}))`;
/** Every step of every story, opened: the line boxes its time takes, and whether it starts beside its text. */
interface Step {
  time: string;
  lines: number;
  besideText: boolean;
}
const STEPS = `(() => {
  const boxes = (e) => { const r = document.createRange(); r.selectNodeContents(e); return [...r.getClientRects()]; };
  const all = [...document.querySelectorAll('details.story')];
  for (const d of all) d.open = true;
  return all.flatMap((d) => [...d.querySelectorAll('li')].map((li) => {
    const time = boxes(li.querySelector('time'));
    const text = boxes(li.querySelector('span'));
    return { time: li.querySelector('time').textContent, lines: time.length,
      besideText: time.length > 0 && text.length > 0 && Math.abs(time[0].top - text[0].top) < 3 };
  }));
})()`;

describe('the digest page in Chromium', () => {
  test('every run with its outcome and timeline, the questions ranked, nothing loaded, nothing run', async () => {
    const file = join(screenshotDir(dir), 'digest-night.html');
    writeFileSync(file, digestHtml(nightDigest(), localTime('UTC')));
    const { page, requests, errors } = await browser.open(file);

    const runs = await page.$$eval('article.run', (els) =>
      els.map((e) => ({
        id: e.getAttribute('data-run'),
        badge: e.querySelector('.badge')?.textContent,
        reason: e.querySelector('.reason')?.textContent,
        sessions: e.querySelectorAll('svg.timeline g.session').length,
      })),
    );
    // The run that needs the person first, then the live one, then the finished one.
    expect(runs).toEqual([
      {
        id: '2026-11-21-2240-migrate-billing',
        badge: 'FAILED',
        reason: 'circuit breaker: 5 restarts, last exit 1: API Error: 500 Internal server error',
        sessions: 6,
      },
      { id: '2026-11-22-0030-benchmark-sync', badge: 'RUNNING', reason: undefined, sessions: 2 },
      {
        id: '2026-11-21-2315-survey-crdt',
        badge: 'DONE',
        reason: 'finished: REPORT.md written by the synthesis',
        sessions: 4,
      },
    ]);
    const tiles = await page.$$eval('.tile', (els) =>
      Object.fromEntries(els.map((e) => [e.getAttribute('data-key'), e.querySelector('b')?.textContent])),
    );
    expect(tiles).toEqual({
      runs: '3',
      done: '1',
      failed: '1',
      live: '1',
      needs: '1',
      questions: '5',
      cost: '$7.49',
    });
    const questions = await page.$$eval('li.question', (els) =>
      els.map((e) => [
        e.getAttribute('data-priority'),
        e.getAttribute('data-run'),
        e.querySelector('.q-title')?.textContent,
      ]),
    );
    expect(questions).toEqual([
      ['high', '2026-11-21-2315-survey-crdt', 'Which sync protocol should the client speak?'],
      [
        'high',
        '2026-11-22-0030-benchmark-sync',
        '<script>alert("pwned")</script> Is \\x1b[31mred\\x1b[0m text allowed?',
      ],
      ['medium', '2026-11-21-2240-migrate-billing', 'May the migration pause the nightly invoice job?'],
      ['low', '2026-11-21-2315-survey-crdt', 'Is an MIT or Apache-2.0 licence required?'],
      ['unknown', '2026-11-22-0030-benchmark-sync', 'Which packet-loss rates matter most?'],
    ]);
    // What the agent and the task wrote is text on the page, never markup.
    expect(await page.$$eval('script, img, iframe, object, embed', (els) => els.length)).toBe(0);
    expect(await page.textContent('article[data-run="2026-11-22-0030-benchmark-sync"] h3')).toContain(
      '<img src=x onerror=alert(1)>',
    );
    expect(requests).toEqual([expect.stringMatching(/^file:.*digest-night\.html$/)]);
    expect(errors).toEqual([]);

    const shots = screenshotDir(dir);
    await page.screenshot({ path: join(shots, 'digest-night.png'), fullPage: true });
    const narrow = await browser.open(file, { width: 420, dark: true });
    await narrow.page.screenshot({ path: join(shots, 'digest-night-narrow-dark.png'), fullPage: true });
    expect(narrow.errors).toEqual([]);
    // Nothing wider than the narrow window: the page reflows rather than scrolls sideways.
    expect(await narrow.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(420);
  });

  test('a DONE run that needs the person is marked as the failed one is; each step’s time on one line', async () => {
    const night = nightDigest();
    // The survey ended without its report: DONE, and the person is needed. Its steps came within
    // half an hour, so their times have seconds (08:05:30).
    const runs = night.runs.map((r) =>
      r.state === 'done'
        ? {
            ...r,
            report: null,
            cause: 'no-report' as const,
            reason: 'finished without a report',
            timeline: r.timeline.map((e, i) => ({
              ...e,
              at: new Date(night.now.getTime() - (30 - i) * 61_000),
            })),
          }
        : r,
    );
    const file = join(screenshotDir(dir), 'digest-done-needs-you.html');
    writeFileSync(file, digestHtml({ ...night, runs }, localTime('UTC')));
    for (const width of [1000, 420]) {
      const { page, errors } = await browser.open(file, { width });
      const look = (await page.evaluate(LOOK)) as Record<string, Look | undefined>;
      expect(look.done).toMatchObject({ needs: true, badgeText: 'DONE' });
      expect(look.failed?.needs).toBe(true);
      expect(look.done?.border).toBe(look.failed?.border);
      expect(look.done?.badge).toBe(look.failed?.badge);
      expect(look.running?.border).not.toBe(look.failed?.border);

      // The steps, opened: each time is one line, beside its text (08:05:30 as much as 23:15).
      const steps = (await page.evaluate(STEPS)) as Step[];
      expect(steps.length).toBeGreaterThan(10);
      expect(steps.filter((s) => /^\d\d:\d\d:\d\d$/.test(s.time)).length).toBeGreaterThan(3);
      expect(steps.filter((s) => s.lines !== 1 || !s.besideText)).toEqual([]);
      expect(errors).toEqual([]);
      await page.screenshot({
        path: join(screenshotDir(dir), `digest-done-needs-you-${width}.png`),
        fullPage: true,
      });
    }
  });
});
