import { chmodSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';

import { launchBrowser, screenshotDir, type Browser } from '../helpers/browser.js';
import { waitFor, type Launched, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// A night with the fake agent: a run that fails on its circuit breaker, one that finishes with a
// report, one still at work, each with questions of its own. The digest as text and as a page in
// Chromium, and `status <run> --json` with the timeline and the questions.

const question = (title: string, priority: string, guess: string) =>
  `## ${title}\n- Best guess: ${guess}\n- Why it matters: it changes the plan\n- Priority: ${priority}\n`;
const Q = {
  failing: question('May the job touch the production queue?', 'medium', 'no, a copy'),
  done: question('Is MIT acceptable?', 'low', 'yes') + '\n' + question('Which CRDT library?', 'High', 'Yjs'),
  live: '## **Packet loss up to what rate?**\n**Best guess:** 5 %\n',
};

interface Night {
  failing: Launched;
  done: Launched;
  live: Launched;
}

async function night(sb: Sandbox): Promise<Night> {
  sb.setBehaviour({ exit: 1, questions: Q.failing });
  const failing = await sb.launch('Migrate the billing queue', ['--name', 'failing', '--max-restarts', '1']);
  await waitFor(() => sb.read(sb.state(failing.id, 'final.json')), {
    what: 'the failed run summed up',
  });
  await sb.quiesce();

  sb.setBehaviour({ report: true, finding: 'yjs.md', questions: Q.done });
  const done = await sb.launch('Survey CRDT libraries', ['--name', 'done']);
  await waitFor(() => sb.read(sb.state(done.id, 'final.json')), {
    what: 'the finished run summed up',
  });
  await sb.quiesce();

  sb.setBehaviour({ work: 120, questions: Q.live });
  const live = await sb.launch('Benchmark <b>sync</b> under loss', ['--name', 'live', '--duration', '1h']);
  await sb.agentPid(live.id);
  await waitFor(() => sb.read(sb.ws(live.id, 'questions.md'))?.includes('Packet loss'), {
    what: 'the live run asked its question',
  });
  return { failing, done, live };
}

const lines = (text: string) => text.split('\n');

describe('digest', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a failed, a finished and a live run: the text, the page in Chromium, and status <run> --json', async ({
    sb,
  }) => {
    const { failing, done, live } = await night(sb);

    const text = await sb.run(['digest']);
    expect(text.exitCode, text.stderr).toBe(0);
    const out = lines(text.stdout);
    expect(out[1]).toBe(
      '3 runs: 1 done, 1 failed, 1 still going · 1 needs you · 4 open questions · $0.03 spent',
    );
    // Who needs the person first, then what is still going, then what is done.
    const heads = out.filter((l) => /^[✓✗▶…‖] /.test(l)).map((l) => l.split('  ')[1]);
    expect(heads).toEqual([failing.id, live.id, done.id]);
    expect(out).toContain('  needs you:  circuit breaker: 1 restart, last exit 1: API Error: fake failure 1');
    expect(out).toContain(`  report:     ${done.workspace}/REPORT.md`);
    expect(out).toContain('    │ # Report');
    const ranked = out.slice(out.indexOf('Open questions, highest priority first (4)') + 1);
    expect(ranked.filter((l) => /^ {2}\S/.test(l))).toEqual([
      '  high     Which CRDT library?',
      '  medium   May the job touch the production queue?',
      '  low      Is MIT acceptable?',
      '  unknown  Packet loss up to what rate?',
    ]);

    const file = join(screenshotDir(sb.dir), 'digest-fake-night.html');
    const page = await sb.run(['digest', '--html', file]);
    expect(page.exitCode, page.stderr).toBe(0);
    expect(page.stdout).toBe(`${file}: ${out[1]}`);
    const { page: tab, requests, errors } = await browser.open(file);
    expect(
      await tab.$$eval('article.run', (els) =>
        els.map((e) => [e.getAttribute('data-run'), e.getAttribute('data-state')]),
      ),
    ).toEqual([
      [failing.id, 'failed'],
      [live.id, 'running'],
      [done.id, 'done'],
    ]);
    expect(
      await tab.$$eval('li.question', (els) =>
        els.map((e) => [e.getAttribute('data-priority'), e.getAttribute('data-run')]),
      ),
    ).toEqual([
      ['high', done.id],
      ['medium', failing.id],
      ['low', done.id],
      ['unknown', live.id],
    ]);
    expect(await tab.textContent(`article[data-run="${live.id}"] h3`)).toBe(
      'Benchmark <b>sync</b> under loss',
    );
    expect(requests).toEqual([expect.stringMatching(/digest-fake-night\.html$/)]);
    expect(errors).toEqual([]);
    await tab.screenshot({ path: join(screenshotDir(sb.dir), 'digest-fake-night.png'), fullPage: true });

    const story = async (id: string) => {
      return (await sb.status([id]))[0] as {
        timeline: Record<string, unknown>[];
        questions: Record<string, unknown>[];
        openQuestions: number;
      };
    };
    const failed = await story(failing.id);
    expect(failed.timeline.map((e) => [e.kind, e.session ?? e.outcome, e.mode ?? null])).toEqual([
      ['session', 1, 'initial'],
      ['session', 2, 'resume'],
      ['finish', 'FAILED', null],
    ]);
    expect(failed.timeline[1]).toMatchObject({
      restart: { count: 1, max: 1 },
      end: { kind: 'error', text: 'error: API Error: fake failure 1', exit: 1 },
      costUsd: 0.01,
    });
    expect(failed.questions).toEqual([
      {
        title: 'May the job touch the production queue?',
        priority: 'medium',
        answered: false,
        bestGuess: 'no, a copy',
        whyItMatters: 'it changes the plan',
      },
    ]);
    expect(failed.openQuestions).toBe(1);
    const running = await story(live.id);
    expect(running.timeline).toEqual([
      expect.objectContaining({
        kind: 'session',
        session: 1,
        end: { kind: 'running', text: 'running', exit: null },
      }),
    ]);
    expect(running.questions).toEqual([
      { title: 'Packet loss up to what rate?', priority: 'unknown', answered: false, bestGuess: '5 %' },
    ]);
    // Without a run named, the same count under the same name, and no list: one key, one shape.
    const all = await sb.status<{ id: string; openQuestions: unknown; questions?: unknown }>();
    expect(Object.fromEntries(all.map((r) => [r.id, r.openQuestions]))).toEqual({
      [failing.id]: 1,
      [done.id]: 2,
      [live.id]: 1,
    });
    expect(all.filter((r) => 'questions' in r)).toEqual([]);
  });

  it('the window leaves out runs that finished before it; a bad window or page path is said in words', async ({
    sb,
  }) => {
    sb.setBehaviour({ report: true });
    const old = await sb.launch('An old night', ['--name', 'old']);
    await waitFor(() => sb.read(sb.state(old.id, 'final.json')), {
      what: 'the old run summed up',
    });
    await sb.quiesce();
    const threeDaysAgo = new Date(Date.now() - 3 * 86400_000);
    for (const f of ['events.jsonl', 'output.log', 'DONE', 'session.json'])
      utimesSync(sb.state(old.id, f), threeDaysAgo, threeDaysAgo);

    const recent = await sb.run(['digest', '--since', '24h']);
    expect(recent.stdout).toContain('No run ended or changed in the last 24h.');
    const wider = await sb.run(['digest', '--since', '4d']);
    expect(wider.stdout).toContain(old.id);

    const bad = await sb.run(['digest', '--since', 'last week']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toBe(
      'overnight: --since "last week" is not a duration such as 12h, 24h or 3d, ' +
        'or an ISO 8601 time such as 2026-11-21T18:00 in the past',
    );
    const nowhere = await sb.run(['digest', '--html', join(sb.dir, 'no', 'such', 'dir', 'd.html')]);
    expect(nowhere.exitCode).toBe(1);
    expect(nowhere.stderr).toMatch(/cannot write the digest to .*d\.html: its directory does not exist/);
  });

  it('--open hands the page to the default browser, and without one says why and what to do instead', async ({
    sb,
  }) => {
    const bin = join(sb.dir, 'bin');
    mkdirSync(bin);
    const opened = join(sb.dir, 'opened');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const desktop = { DISPLAY: ':0' };

    const r = await sb.run(['digest', '--open'], { env: { ...desktop, PATH: `${bin}:/usr/bin:/bin` } });
    expect(r.exitCode, r.stderr).toBe(0);
    const page = join(sb.runs, 'digest.html');
    expect(await waitFor(() => sb.read(opened), { what: 'the opener called' })).toBe(page);
    expect(existsSync(page)).toBe(true);
    const text = 'or read the digest as text with `overnight digest`';

    // Over SSH: no display, so no browser is tried; the page can be copied, or the text read.
    rmSync(opened);
    const ssh = await sb.run(['digest', '--open'], {
      env: { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, PATH: `${bin}:/usr/bin:/bin` },
    });
    expect(ssh.exitCode).toBe(1);
    expect(ssh.stderr).toBe(
      'overnight: cannot open the digest: there is no display here (DISPLAY and WAYLAND_DISPLAY are unset, ' +
        `as over SSH or in a container); the page is ${page}: copy the page to a machine with a browser ` +
        `(scp ${hostname()}:${page} .) and open it there, ${text}`,
    );
    expect(sb.read(opened)).toBeNull();

    // xdg-open with no browser to hand it to: what it means, and the same ways out.
    writeFileSync(
      join(bin, 'xdg-open'),
      '#!/bin/sh\necho "xdg-open: no method available for opening \'$1\'" >&2\nexit 3\n',
    );
    const nobrowser = await sb.run(['digest', '--open'], {
      env: { ...desktop, PATH: `${bin}:/usr/bin:/bin` },
    });
    expect(nobrowser.exitCode).toBe(1);
    expect(nobrowser.stderr).toMatch(
      /^overnight: cannot open the digest: xdg-open found no browser \(it exited with status 3\); the page is .*: install a browser or set BROWSER to one, copy the page/,
    );
    expect(nobrowser.stderr).toContain(text);

    const none = await sb.run(['digest', '--open'], { env: { ...desktop, PATH: join(sb.dir, 'empty') } });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe(
      `overnight: cannot open the digest: xdg-open is not on PATH (xdg-utils has it); the page is ${page}: ` +
        `open it in a browser yourself, ${text}`,
    );
  });
});
