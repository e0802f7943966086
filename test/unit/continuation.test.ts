import { describe, expect, test } from 'vitest';

import { agentArgs, promptFor } from '../../src/core/agent/args.js';
import { renderClaudeMd } from '../../src/core/agent/briefing.js';
import {
  continuationNote,
  continuedSection,
  followUpHandover,
  forkPrompt,
} from '../../src/core/agent/continuation.js';
import { HERE, runFiles } from '../../src/core/agent/run-files.js';
import { summarizeUsage } from '../../src/core/agent/sessions.js';
import { parseStream } from '../../src/core/agent/stream.js';
import {
  parseContinuation,
  parseContinuedBy,
  serializeContinuation,
  type Continuation,
} from '../../src/core/run/continuation.js';
import { specFromDoc, specToDoc } from '../../src/core/run/records.js';
import { ENDS, REPO, RUN_DIR, spec, STARTED } from './builders.js';

// The follow-up of a finished run (`overnight continue`): its record, its briefing and first prompt,
// its first session's argv, and its cost counted without the earlier night's.

const FROM = '2026-11-21-2315-survey-crdt';
const FROM_WS = '/home/me/overnight-runs/2026-11-21-2315-survey-crdt';
const OLD = '7d1a4c52-9a43-4f1e-8d7c-6b5a0b6f3c2e';
const NEW = '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a';
const NOW = new Date('2026-11-22T23:00:00Z');

function continuation(over: Partial<Continuation> = {}): Continuation {
  return {
    from: FROM,
    fromWorkspace: FROM_WS,
    ended: 'finished: REPORT.md written',
    fork: OLD,
    why: null,
    inheritedCostUsd: 1.25,
    answered: [{ title: 'Automerge 2 only?', answer: 'Yes, v2 only; look at the sync protocol too.' }],
    open: 2,
    notes: null,
    report: true,
    lastWords: 'Wrote REPORT.md.',
    ...over,
  };
}

describe('the continuation record', () => {
  test('round-trips', () => {
    const c = continuation({ notes: 'Focus on sync.', why: null });
    expect(parseContinuation(serializeContinuation(c))).toEqual(c);
  });

  test.each([
    { name: 'torn JSON', text: '{"v":1,"from":"x"', want: null },
    { name: 'another version', text: '{"v":2,"from":"a","fromWorkspace":"/w","answered":[]}', want: null },
    { name: 'no run named', text: '{"v":1,"fromWorkspace":"/w","answered":[]}', want: null },
    {
      name: 'odd fields defaulted, bad answers dropped',
      text: JSON.stringify({
        v: 1,
        from: 'a',
        fromWorkspace: '/w',
        answered: [{ title: 'q', answer: 'a' }, { title: 3 }, null],
        inheritedCostUsd: -2,
        open: 'x',
      }),
      want: {
        from: 'a',
        fromWorkspace: '/w',
        ended: '',
        fork: null,
        why: null,
        inheritedCostUsd: 0,
        answered: [{ title: 'q', answer: 'a' }],
        open: 0,
        notes: null,
        report: false,
        lastWords: null,
      },
    },
  ])('$name → $want', ({ text, want }) => {
    expect(parseContinuation(text)).toEqual(want);
  });

  test.each([
    { name: 'a plain run', text: '{"id":"r2","at":"t"}', want: { id: 'r2', at: 't' } },
    {
      name: 'a repository run',
      text: '{"id":"r2","at":"t","head":"abc"}',
      want: { id: 'r2', at: 't', head: 'abc' },
    },
    { name: 'no id', text: '{"at":"t"}', want: null },
    { name: 'torn', text: '{"id":', want: null },
  ])('the continued-by link: $name → $want', ({ text, want }) => {
    expect(parseContinuedBy(text)).toEqual(want);
  });

  test('run.yaml keeps the run a follow-up continues; older runs continue none', () => {
    const s = spec({ continues: FROM });
    expect(specToDoc(s)).toMatchObject({ continues: FROM });
    expect(specFromDoc(specToDoc(s))).toEqual(s);
    expect(specToDoc(spec())).not.toHaveProperty('continues');
    expect(specFromDoc(specToDoc(spec())).continues).toBeUndefined();
  });
});

describe("the follow-up's first session", () => {
  test('a fork resumes the earlier conversation into the one overnight chose', () => {
    const args = agentArgs(spec({ sessionId: NEW, continues: FROM }), 'initial', 0, false, null, OLD);
    expect(args.slice(4, 9)).toEqual(['--resume', OLD, '--fork-session', '--session-id', NEW]);
    expect(args.filter((a) => a === '--resume' || a === '--session-id')).toHaveLength(2);
  });

  test.each([
    { name: 'a repository follow-up', over: { repo: REPO, continues: FROM }, want: true },
    {
      name: 'a plain follow-up (its CLAUDE.md is re-read by the CLI)',
      over: { continues: FROM },
      want: false,
    },
    { name: 'a repository run of its own', over: { repo: REPO }, want: false },
  ])('$name: the recorded system prompt replaced by the new briefing → $want', ({ over, want }) => {
    for (const mode of ['initial', 'resume'] as const) {
      const args = agentArgs(spec(over), mode, 0, false, RUN_DIR);
      const i = args.indexOf('--system-prompt-snapshot');
      expect(i >= 0 && args[i + 1] === 'off').toBe(want);
    }
  });

  test("the fork's prompt: new briefing, new place, the answer, what is open, the notes", () => {
    const text = promptFor(
      spec({ continues: FROM }),
      'initial',
      NOW,
      undefined,
      '/runs/r2',
      continuation({ notes: 'Focus on the sync protocol.' }),
    );
    expect(text).toContain(`continuing the run ${FROM} in the same conversation`);
    expect(text).toContain('re-read CLAUDE.md now');
    expect(text).toContain("this run's directory, /runs/r2 (your working directory)");
    expect(text).toContain(`never write in ${FROM_WS} again`);
    expect(text).toContain('1. Automerge 2 only?\n   Answer: Yes, v2 only; look at the sync protocol too.');
    expect(text).toContain('2 questions are still open');
    expect(text).toContain("The person's notes for this night:\n\nFocus on the sync protocol.");
    expect(text).toContain('previous/REPORT.md');
    expect(text).toMatch(/Take the answers into account/);
  });

  test("a repository fork's prompt names the worktree, the branch and the run's files by path", () => {
    const text = promptFor(
      spec({ repo: REPO, continues: FROM }),
      'initial',
      NOW,
      undefined,
      RUN_DIR,
      continuation(),
    );
    expect(text).toContain(
      `the worktree ${REPO.worktree} (your working directory), still on the branch ${REPO.branch}`,
    );
    expect(text).toContain(`${RUN_DIR}/findings/, ${RUN_DIR}/questions.md`);
    expect(text).toContain(`${RUN_DIR}/previous/REPORT.md`);
    expect(text).toContain('it is in your system prompt again');
  });

  test.each([
    {
      name: 'none answered, one open',
      c: { answered: [], open: 1 },
      want: 'None of the questions in questions.md has an answer yet. One question is still open',
    },
    { name: 'all answered', c: { open: 0 }, want: 'The person answered 1 question in questions.md:' },
    {
      name: 'an answer too long for a prompt',
      c: { answered: [{ title: 'q', answer: 'x'.repeat(5000) }] },
      want: `${'x'.repeat(2000)}… (the whole answer is in questions.md)`,
    },
    {
      name: 'notes too long for a prompt',
      c: { notes: 'n'.repeat(20_000) },
      want: 'The person left notes for this night (20 KB): read them in CLAUDE.md.',
    },
    { name: 'no report left', c: { report: false }, want: 'Carry on with the open threads in the findings' },
  ])('$name → says "$want"', ({ c, want }) => {
    expect(forkPrompt(continuation(c), HERE, 'here', false)).toContain(want);
  });

  test('many long answers: the prompt stays bounded, the rest named by title', () => {
    const answered = Array.from({ length: 40 }, (_, i) => ({ title: `q${i}`, answer: 'a'.repeat(1900) }));
    const text = forkPrompt(continuation({ answered }), HERE, 'here', false);
    expect(text.length).toBeLessThan(40 * 1024);
    expect(text).toContain('The answers to these are in questions.md:');
    expect(text).toMatch(/^- q39$/m);
  });

  test('handed over: why, the last words, the answers and the task in a fresh conversation', () => {
    const c = continuation({ fork: null, why: 'its transcript is 300 MB, over max_transcript (256 MB)' });
    const text = promptFor(
      spec({ task: 'Survey CRDT', continues: FROM }),
      'initial',
      NOW,
      undefined,
      null,
      c,
    );
    expect(text).toBe(followUpHandover(c, 'Survey CRDT', HERE));
    expect(text).toContain('its conversation could not be resumed (its transcript is 300 MB');
    expect(text).toContain("The earlier run's last words were:\n\nWrote REPORT.md.");
    expect(text).toContain('Answer: Yes, v2 only');
    expect(text).toContain('The task:\n\nSurvey CRDT');
  });

  test('a later fresh session of a follow-up hears the answers again, with the last words it has', () => {
    const s = spec({ continues: FROM });
    const c = continuation();
    const text = promptFor(s, 'resume', NOW, { lastResult: null }, null, c);
    expect(text).toContain("The previous session's last words were:\n\nWrote REPORT.md.");
    expect(text).toContain(continuationNote(c, HERE).trim());
    expect(promptFor(s, 'resume', NOW, { lastResult: 'Tonight: two findings.' }, null, c)).toContain(
      'Tonight: two findings.',
    );
  });

  test('a follow-up without its record starts like any run', () => {
    expect(promptFor(spec({ continues: FROM }), 'initial', NOW, undefined, null, null)).toMatch(
      /^You are running unattended under overnight\./,
    );
  });
});

describe("the follow-up's briefing", () => {
  test('the task as it was, then where it started from and the notes verbatim', () => {
    const c = continuation({ notes: 'Notes with ``` fences' });
    const md = renderClaudeMd({
      task: 'Survey CRDT',
      startedAt: STARTED,
      endsAt: ENDS,
      continued: continuedSection(c, HERE, false),
    });
    expect(md.indexOf('Survey CRDT')).toBeLessThan(md.indexOf(`## Continued from ${FROM}`));
    expect(md.indexOf(`## Continued from ${FROM}`)).toBeLessThan(md.indexOf('## Time'));
    expect(md).toContain('which ended:\nfinished: REPORT.md written');
    expect(md).toContain('- `previous/REPORT.md`: its report.');
    expect(md).toContain(
      `Never write in the earlier run's directory (\`${FROM_WS}\`): everything of this run`,
    );
    expect(md).toContain('````text\nNotes with ``` fences\n````');
  });

  test("a repository follow-up's briefing: absolute paths, the branch carried on", () => {
    const f = runFiles(RUN_DIR);
    const md = renderClaudeMd({
      task: 'Fix it',
      startedAt: STARTED,
      endsAt: ENDS,
      repo: { ...REPO, runDir: RUN_DIR, continues: FROM },
      continued: continuedSection(continuation({ report: false }), f, true),
    });
    expect(md).toContain(`carried on from the run ${FROM} at commit ${REPO.base.slice(0, 12)}`);
    expect(md).toContain(`- \`${RUN_DIR}/findings/\`: its findings.`);
    expect(md).toContain('It left no report');
    expect(md).toContain('or its worktree');
  });
});

describe("a follow-up's cost", () => {
  const marker = (n: number, mode: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'overnight_session', session: n, mode, conversation: NEW, ...extra });
  const result = (cost: number, session_id = NEW) =>
    JSON.stringify({ type: 'result', subtype: 'success', session_id, is_error: false, total_cost_usd: cost });

  test.each([
    {
      name: "the fork's running total less what the earlier night had spent",
      lines: [
        marker(1, 'initial', { forkedFrom: OLD, inheritedCostUsd: 1.25 }),
        result(1.5),
        marker(2, 'resume'),
        result(2),
      ],
      want: 0.75,
    },
    {
      name: 'a fresh conversation after it adds its own',
      lines: [
        marker(1, 'initial', { inheritedCostUsd: 1.25 }),
        result(1.5),
        marker(2, 'resume'),
        result(0.5, 'conv-2'),
      ],
      want: 0.75,
    },
    { name: 'a run that is no follow-up', lines: [marker(1, 'initial'), result(1.5)], want: 1.5 },
    {
      name: 'a fork that said nothing new never goes below zero',
      lines: [marker(1, 'initial', { inheritedCostUsd: 1.25 }), result(1)],
      want: 0,
    },
  ])('$name → $want', ({ lines, want }) => {
    expect(summarizeUsage(parseStream(lines.join('\n') + '\n')).costUsd).toBe(want);
  });
});
