import { PRIORITIES } from '../agent/questions.js';
import { formatDuration } from '../config/duration.js';
import type { LocalTime } from '../local-time.js';
import { RUN_STATES } from '../run/types.js';
import { money } from '../status/table.js';
import { describeEntry, entryClock } from '../status/timeline-text.js';
import { isLive } from '../supervise/live-states.js';
import { anchor, esc, escCode, fragment, num, oneOf, token } from './escape.js';
import { cspHash } from './sha256.js';
import { DIGEST_CSS } from './style.js';
import { digestNeed, openQuestions, orderRuns, summarize, type RunQuestion } from './summary.js';
import { spanOf, timelineSvg } from './svg.js';
import { nightsLine, runSeconds } from './text.js';
import type { Digest, DigestRun } from './types.js';

/** The check's verdicts: the only words a data-verdict attribute may hold. */
const VERDICTS = ['verified', 'not-verified', 'unchanged', 'error', 'none'];

// The morning digest as one self-contained page: inline CSS and SVG, no script, nothing loaded,
// no element that can navigate away (the content security policy forbids what it can too). Pure.
// Every value from the agent, the task or a file goes through a helper of escape.ts for its
// context: text and attributes through esc(), class names and data-* values from closed sets.

/**
 * What the page may do: show its own stylesheet (named by hash: no other style element or
 * attribute applies), nothing else; no script, no request, no form, no <base>. A policy cannot
 * forbid navigation (navigate-to never shipped), so no element that navigates is made from data:
 * no meta refresh, no form, no link but to the page's own fragments.
 */
export const CSP =
  `default-src 'none'; style-src ${cspHash(DIGEST_CSS)}; img-src 'none'; script-src 'none'; ` +
  "object-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'";

const FINISHED: readonly string[] = ['done', 'failed'];
/** The noun alone (the count is in its own element). */
const noun = (n: number, one: string, many = `${one}s`) => (n === 1 ? one : many);

function tiles(d: Digest): string {
  const s = summarize(d.runs);
  const tile = (cls: string, n: string | number, label: string, some = false) =>
    `<div class="tile ${cls}${some ? ' some' : ''}" data-key="${cls.slice(2)}"><b>${n}</b>` +
    `<span>${label}</span></div>`;
  return (
    '<section class="tiles" aria-label="summary">' +
    tile('t-runs', s.runs, noun(s.runs, 'run')) +
    tile('t-done', s.done, 'done') +
    tile('t-failed', s.failed, 'failed', s.failed > 0) +
    tile('t-live', s.live, 'still going') +
    tile('t-needs', s.needsYou, noun(s.needsYou, 'needs you', 'need you'), s.needsYou > 0) +
    `<a class="tile t-questions" data-key="questions" href="#questions"><b>${s.openQuestions}</b>` +
    `<span>open ${noun(s.openQuestions, 'question')}</span></a>` +
    tile('t-cost', esc(money(num(s.costUsd))), 'spent') +
    '</section>'
  );
}

/** Only the kinds of mark the run's timeline has. */
function legend(run: DigestRun, now: Date): string {
  const span = spanOf(run, now);
  const endDrawn = !!run.endsAt && run.endsAt >= span.from && run.endsAt <= span.to;
  const live = !run.timeline.some((e) => e.kind === 'finish');
  const has = (test: (e: DigestRun['timeline'][number]) => boolean) => run.timeline.some(test);
  // Colours are classes of the stylesheet (lg-*): the page has no style attribute, so its policy
  // needs no 'unsafe-inline'.
  const items: [boolean, string, string][] = [
    [has((e) => e.kind === 'session' && ['initial', 'continue'].includes(e.mode)), 'initial', 'working'],
    [has((e) => e.kind === 'session' && e.mode === 'resume'), 'resume', 'resumed after a crash'],
    [has((e) => e.kind === 'session' && e.mode === 'retry'), 'retry', 'retried login'],
    [has((e) => e.kind === 'session' && e.mode === 'fix'), 'fix', 'fixing what the check found'],
    [has((e) => e.kind === 'session' && e.mode === 'synthesis'), 'synthesis', 'synthesis'],
    [
      has((e) => e.kind === 'session' && ['error', 'limit'].includes(e.end.kind)),
      'error',
      'ended in an error',
    ],
    [has((e) => e.kind === 'wait' && e.for !== 'backoff'), 'wait', 'waiting out a limit'],
    [has((e) => e.kind === 'wait' && e.for === 'backoff'), 'backoff', 'backing off'],
    [has((e) => e.kind === 'hang'), 'hang', 'hang'],
    [endDrawn, 'ends', 'end time'],
    [live, 'now', 'now'],
  ];
  const shown = items
    .filter(([on]) => on)
    .map(([, cls, label]) => `<span><i class="lg-${cls}"></i>${label}</span>`);
  return `<div class="legend">${shown.join('')}</div>`;
}

/** The check's verdict beside the report, for a run with one. */
function checkBlock(run: DigestRun): string {
  const review = run.review ? `<p class="review">${esc(run.review.line)}</p>` : '';
  if (!run.verify?.line) return review;
  const verdict = oneOf(run.verify.verdict, VERDICTS, 'none');
  const tests = run.verify.tests ? `<p class="check-tests">${esc(run.verify.tests)}</p>` : '';
  return `<p class="check" data-verdict="${verdict}">${esc(run.verify.line)}</p>${tests}${review}`;
}

function reportBlock(run: DigestRun): string {
  if (!run.report) {
    const live = isLive(run.state);
    const said = live ? 'No report yet.' : 'No report was written: see findings/ and questions.md.';
    return `<p class="no-report">${said}</p>`;
  }
  const lines = run.report.head.map((l) => {
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(l);
    return heading ? `<p class="h">${esc(heading[1] as string)}</p>` : `<p>${esc(l)}</p>`;
  });
  return (
    '<div class="report">' +
    `<div class="report-path">REPORT.md · <span class="mono">${esc(run.report.path)}</span></div>` +
    (lines.length ? `<blockquote>${lines.join('')}</blockquote>` : '') +
    '</div>'
  );
}

function facts(run: DigestRun, now: Date): string {
  const seconds = runSeconds(run, now);
  const items = [
    `<b>${esc(money(num(run.costUsd)))}</b> spent`,
    seconds === null || !Number.isFinite(seconds)
      ? ''
      : `<b>${esc(formatDuration(seconds))}</b> ${FINISHED.includes(run.state) ? 'in all' : 'so far'}`,
    `<b>${num(run.restarts)}</b> of ${esc(run.maxRestarts ?? '?')} ` +
      noun(num(run.maxRestarts, 2), 'restart'),
    `<b>${num(run.findings)}</b> ${noun(num(run.findings), 'finding')}`,
  ].filter(Boolean);
  return `<p class="facts">${items.join(' · ')}</p>`;
}

function runCard(run: DigestRun, now: Date, clock: LocalTime): string {
  const needs = digestNeed(run);
  const open = run.questions.filter((q) => !q.answered).length;
  const time = entryClock(run.timeline, clock);
  const story = run.timeline
    .map((e) => `<li><time>${esc(time(e.at))}</time><span>${esc(describeEntry(e, clock))}</span></li>`)
    .join('');
  // A state outside the closed set (a record the agent rewrote) is shown as unknown, never placed.
  const state = oneOf(run.state, [...RUN_STATES, 'unknown'], 'unknown');
  // A run that needs the person is marked so whatever its state: a DONE run can need them too.
  return (
    `<article class="run state-${state}${needs ? ' needs-you' : ''}" id="${anchor('run', run.id)}" ` +
    `data-run="${token(run.id)}" data-state="${state}">` +
    `<div class="run-head"><h3 class="task">${esc(run.task ?? '(task unknown)')}</h3>` +
    `<span class="badge">${state.toUpperCase()}</span></div>` +
    `<div class="run-id mono">${esc(run.id)}</div>` +
    (nightsLine(run) ? `<p class="nights mono">${esc(nightsLine(run) ?? '')}</p>` : '') +
    facts(run, now) +
    (needs
      ? `<p class="needs"><strong>Needs you:</strong> <span class="reason">${escCode(needs)}</span></p>`
      : run.reason
        ? `<p class="outcome reason">${escCode(run.reason)}</p>`
        : '') +
    (Array.isArray(run.warnings) ? run.warnings : [])
      .map((w) => `<p class="warning">${escCode(w)}</p>`)
      .join('') +
    (run.timeline.length ? `<figure>${timelineSvg(run, now, clock)}${legend(run, now)}</figure>` : '') +
    checkBlock(run) +
    reportBlock(run) +
    (open > 0
      ? `<p class="q-count"><a href="#questions">${open} open ${noun(open, 'question')}</a> ` +
        `in <span class="mono">${esc(run.workspace)}/questions.md</span></p>`
      : '') +
    (story
      ? `<details class="story"><summary>The night, step by step (${run.timeline.length})</summary>` +
        `<ol>${story}</ol></details>`
      : '') +
    '</article>'
  );
}

function questionItem(q: RunQuestion, runs: readonly DigestRun[]): string {
  const run = runs.find((r) => r.id === q.run);
  const task = run?.task ? ` · ${esc(run.task)}` : '';
  const priority = oneOf(q.priority, PRIORITIES, 'unknown');
  return (
    `<li class="question" data-run="${token(q.run)}" data-priority="${priority}">` +
    `<span class="prio prio-${priority}">${priority}</span><span class="q-title">${esc(q.title)}</span>` +
    (q.bestGuess ? `<p><span class="q-meta">Best guess:</span> ${esc(q.bestGuess)}</p>` : '') +
    (q.whyItMatters ? `<p><span class="q-meta">Why it matters:</span> ${esc(q.whyItMatters)}</p>` : '') +
    `<p class="q-file"><a href="${fragment('run', q.run)}">${esc(q.run)}</a>${task}</p>` +
    '</li>'
  );
}

export function digestHtml(d: Digest, clock: LocalTime): string {
  const runs = orderRuns(d.runs);
  const questions = openQuestions(d.runs);
  const cards = runs.map((r) => runCard(r, d.now, clock)).join('');
  const qs = questions.map((q) => questionItem(q, d.runs)).join('');
  const made = clock.human(d.now);
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
    `<title>overnight digest · ${esc(made)}</title><style>${DIGEST_CSS}</style></head>` +
    '<body><div class="page">' +
    `<header><h1>The night's digest</h1><p class="window">${esc(d.window)} · made ${esc(made)}</p>` +
    tiles(d) +
    '</header><main>' +
    `<h2>Runs</h2>${cards || `<p class="empty">No run ended or changed in ${esc(d.window)}.</p>`}` +
    '<section id="questions">' +
    `<h2>Questions for you, highest priority first</h2>` +
    (qs
      ? `<ol class="questions">${qs}</ol><p class="hint">To answer one, add a line ` +
        "<code>Answer: …</code> under it in its run's <code>questions.md</code>.</p>"
      : '<p class="empty">No open questions.</p>') +
    '</section></main>' +
    '<footer>overnight digest · one page, nothing loaded from elsewhere</footer>' +
    '</div></body></html>\n'
  );
}
