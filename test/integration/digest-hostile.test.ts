import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';

import { runPaths } from '../../src/core/run/paths.js';
import { launchBrowser, type Browser } from '../helpers/browser.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// Attack 5 of issue 17, as the agent would do it: it rewrites every file of its run the digest
// reads (events.jsonl, final.json, the sentinel, restart.log, questions.md, REPORT.md, findings/,
// run.yaml) with markup that would navigate the page away, run script, post a form or rebase its
// links. (The flag is `pwned`, not `__pwned`: questions.md reads `__` as markdown bold.)
// The page, opened in Chromium, stays where it is, runs nothing, and shows the markup as text.

/** Every payload in one value, so any field that carries it carries them all. */
const HOSTILE =
  '"><meta http-equiv="refresh" content="0;url=http://127.0.0.1:1/">' +
  "'><script>window.pwned='script'</script>" +
  '<img src=x onerror="window.pwned=\'img\'">' +
  '</style><svg onload="window.pwned=\'svg\'"></svg>' +
  '<a href="javascript:window.pwned=\'link\'">javascript:alert(1)</a>' +
  '<form action="http://127.0.0.1:1/"><button>go</button></form>' +
  '<base href="http://127.0.0.1:1/"><iframe src="http://127.0.0.1:1/"></iframe>';

const QUESTIONS =
  `## ${HOSTILE}\n- Best guess: ${HOSTILE}\n- Why it matters: ${HOSTILE}\n- Priority: ${HOSTILE}\n\n` +
  `## Second ${HOSTILE}\n**Best guess:** ${HOSTILE}\n**Priority:** high ${HOSTILE}\n`;

/** Every string in a record replaced by HOSTILE (times kept: a time is read as a time or not at all). */
function poison(value: unknown): unknown {
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT/.test(value) ? value : `${value}${HOSTILE}`;
  if (Array.isArray(value)) return [...value.map(poison), HOSTILE];
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v)]));
  return value;
}

/** Lines the agent appends to events.jsonl: one of each kind the timeline draws, every text hostile. */
function hostileEvents(at: Date): string {
  const t = (s: number) => new Date(at.getTime() + s * 1000).toISOString();
  const text = {
    from: HOSTILE,
    to: HOSTILE,
    reason: HOSTILE,
    signal: HOSTILE,
    fresh: HOSTILE,
    conversation: HOSTILE,
    expected: HOSTILE,
  };
  return [
    { at: t(1), action: 'start', session: 7, mode: HOSTILE, exit: 1, ...text },
    { at: t(2), action: 'wait', until: t(60), resetsAt: t(50), ...text },
    { at: t(3), action: 'interrupt', session: 7, hung: true, ...text },
    { at: t(4), action: 'watch', session: 7, ...text },
    { at: t(5), action: HOSTILE, session: 7, mode: HOSTILE, ...text },
    { at: t(6), action: 'finish', ...text, to: `done${HOSTILE}` },
  ]
    .map((e) => JSON.stringify(e))
    .join('\n');
}

async function finishedRun(sb: Sandbox, name: string): Promise<string> {
  sb.setBehaviour({ report: true, finding: 'note.md', questions: QUESTIONS });
  const { id } = await sb.launch(`Task ${HOSTILE}`, ['--name', name]);
  await waitFor(() => sb.read(runPaths(sb.runs, id).final), { what: `${name} summed up` });
  await sb.quiesce();
  return id;
}

/** What the agent rewrites: every file of its run the digest reads. */
function rewrite(sb: Sandbox, id: string, { keepFinal }: { keepFinal: boolean }): void {
  const p = runPaths(sb.runs, id);
  const final = JSON.parse(readFileSync(p.final, 'utf8')) as Record<string, unknown>;
  appendFileSync(p.events, `\n${hostileEvents(new Date(String(final.startedAt)))}\n`);
  appendFileSync(p.restartLog, `${new Date().toISOString()} resume ${HOSTILE}\n`);
  writeFileSync(p.done, HOSTILE);
  writeFileSync(p.report, `# ${HOSTILE}\n\n${HOSTILE}\n> ${HOSTILE}\n`);
  writeFileSync(join(p.findings, 'x"><img src=x onerror=alert(1)>.md'), HOSTILE);
  writeFileSync(p.questions, QUESTIONS);
  if (keepFinal) writeFileSync(p.final, JSON.stringify({ ...(poison(final) as object), state: HOSTILE }));
  else {
    // Without the summary the row is built from the records: the task comes from run.yaml.
    rmSync(p.final);
    rmSync(p.specCache, { force: true });
    const yaml = readFileSync(p.runYaml, 'utf8').replace(/^task:.*$/m, `task: ${JSON.stringify(HOSTILE)}`);
    writeFileSync(p.runYaml, yaml);
  }
}

/** Elements of the page that run, load or navigate: none but the page's own policy. */
const DANGEROUS =
  'meta[http-equiv], base, form, script, iframe, object, embed, img, link, style:not(head > style),' +
  ' [onerror], [onload], [onclick], [style], a[href]:not([href^="#"]), [src], [action], [formaction]';

async function assertInert(page: Page, file: string): Promise<void> {
  const url = page.url();
  // A meta refresh fires after load: any navigation within a while after it is one too many.
  const away = await page.waitForEvent('framenavigated', { timeout: 1500 }).then(
    (frame) => frame.url(),
    () => null,
  );
  expect(away).toBeNull();
  expect(page.url()).toBe(url);
  expect(url).toMatch(new RegExp(`${file.split('/').at(-1)}$`));
  expect(await page.evaluate('window.pwned')).toBeUndefined();
  const found = await page.$$eval(DANGEROUS, (els) => els.map((e) => e.outerHTML.slice(0, 120)));
  expect(found).toEqual([
    expect.stringMatching(/^<meta http-equiv="Content-Security-Policy" content="default-src 'none';/),
  ]);
  // Class names and data-* values are the page's own words, whatever the records said.
  const attrs = await page.$$eval('*', (els) =>
    els.flatMap((e) =>
      [...e.attributes].filter((a) => a.name === 'class' || a.name.startsWith('data-')).map((a) => a.value),
    ),
  );
  expect(attrs.filter((v) => !/^[A-Za-z0-9 ._-]*$/.test(v))).toEqual([]);
}

describe('digest --html with every record of a run rewritten by its agent', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('the page stays where it is, runs nothing, and shows the markup as text', async ({ sb }) => {
    const summed = await finishedRun(sb, 'summed');
    const recorded = await finishedRun(sb, 'recorded');
    rewrite(sb, summed, { keepFinal: true });
    rewrite(sb, recorded, { keepFinal: false });

    const file = join(sb.dir, 'digest.html');
    const made = await sb.run(['digest', '--html', file]);
    expect(made.exitCode, made.stderr).toBe(0);

    const dialogs: string[] = [];
    const { page, requests, errors } = await browser.open(file);
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await assertInert(page, file);
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([expect.stringMatching(/^file:.*digest\.html$/)]);
    expect(errors).toEqual([]);

    // What the agent wrote is there to read, as text.
    const shown = (await page.textContent('body')) ?? '';
    expect(shown.split(HOSTILE).length - 1).toBeGreaterThanOrEqual(8);
    // A summary whose state is markup is refused as a broken file (the state then comes from the
    // records) or shown as unknown: either way the attribute holds one of the page's own words.
    const states = await page.$$eval('article.run', (els) => els.map((e) => e.getAttribute('data-state')));
    for (const state of states) expect(['done', 'failed', 'unknown']).toContain(state);
    expect(await page.textContent('li.question .q-title')).toContain(HOSTILE);
    // The page's own stylesheet applies (its hash is in the policy), and nothing else's does.
    expect(await page.evaluate("getComputedStyle(document.querySelector('.page')).maxWidth")).toBe('880px');
  });
});
