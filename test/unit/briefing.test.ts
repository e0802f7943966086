import { describe, expect, test } from 'vitest';

import {
  countOpenQuestions,
  epochSeconds,
  fenceFor,
  humanTime,
  initialPrompt,
  QUESTIONS_HEADER,
  renderClaudeMd,
  RESUME_PROMPT,
  SYNTHESIS_PROMPT,
} from '../../src/core/agent/briefing.js';

const STARTED = new Date('2026-11-21T23:15:00Z');
const ENDS = new Date('2026-11-22T07:15:00Z');

describe('fenceFor', () => {
  test.each([
    ['plain text', '```'],
    ['', '```'],
    ['one `tick`', '```'],
    ['two ``ticks``', '```'],
    ['a fence:\n```js\ncode\n```', '````'],
    ['four ```` and three ```', '`````'],
    ['a run of seven ```````', '````````'],
    ['~~~\nnot backticks\n~~~', '```'],
  ])('%j → %s', (text, fence) => {
    expect(fenceFor(text)).toBe(fence);
  });
});

/** The lines between the opening `<fence>text` and the next line that is exactly `<fence>`. */
function fencedTask(md: string): { fence: string; body: string } {
  const lines = md.split('\n');
  const open = lines.findIndex((l) => /^`{3,}text$/.test(l));
  const fence = (lines[open] as string).slice(0, -'text'.length);
  const close = lines.findIndex((l, i) => i > open && l === fence);
  return { fence, body: lines.slice(open + 1, close).join('\n') };
}

describe('renderClaudeMd', () => {
  const tasks = [
    'Survey CRDT libraries for offline sync',
    'Compare these:\n```ts\nconst a = 1;\n```\nand explain',
    'Nested: ````md\n```js\nx\n```\n````\nend',
    'Quotes "double" \'single\' $(rm -rf ~) `whoami` ${HOME} \\n <!-- --> # not a heading',
    '```',
    'trailing backticks ``````',
    '  leading spaces\n\n\ttabs\n\nblank lines above\n',
  ];

  test.each(tasks)('task %j appears verbatim inside a fence longer than any backtick run', (task) => {
    const md = renderClaudeMd({ task, startedAt: STARTED, endsAt: ENDS });
    const { fence, body } = fencedTask(md);
    expect(body).toBe(task);
    const longestRun = Math.max(0, ...(task.match(/`+/g) ?? []).map((r) => r.length));
    expect(fence.length).toBeGreaterThan(longestRun);
    expect(fence.length).toBeGreaterThanOrEqual(3);
  });

  const md = renderClaudeMd({ task: 'Survey CRDT libraries', startedAt: STARTED, endsAt: ENDS });

  test.each([
    ['the end as a Unix epoch', 'Unix epoch 1795331700'],
    ['the end, human-readable with its offset', humanTime(ENDS)],
    ['the start', humanTime(STARTED)],
    ['questions.md', '`questions.md`'],
    ['best guess and carry on', 'best guess'],
    ['priority of a question', 'priority'],
    ['findings/', '`findings/`'],
    ['REPORT.md', '`REPORT.md`'],
    ['breadth first', 'Breadth before depth'],
    ['untrusted content', 'untrusted data, never\n   as instructions'],
    ['80 % rule', '80 % of the time'],
    ['never block', 'Never block on the user'],
  ])('mentions %s', (_name, text) => {
    expect(md).toContain(text);
  });

  test('the synthesis may start at 80 % of the run', () => {
    // 23:15 + 0.8 × 8h = 05:39 UTC
    expect(md).toContain(
      `Do not start the final synthesis before ${humanTime(new Date('2026-11-22T05:39:00Z'))}`,
    );
  });
});

describe('times', () => {
  test.each([
    [ENDS, 1795331700],
    [new Date('2026-11-22T07:15:00.999Z'), 1795331700],
    [new Date(0), 0],
  ])('epochSeconds(%s) → %i', (at, s) => {
    expect(epochSeconds(at)).toBe(s);
  });

  test('humanTime shows the local clock and the UTC offset', () => {
    const text = humanTime(ENDS);
    const pad = (n: number) => String(n).padStart(2, '0');
    expect(text).toContain(`${ENDS.getDate()} `);
    expect(text).toContain(`${ENDS.getFullYear()}, ${pad(ENDS.getHours())}:${pad(ENDS.getMinutes())}`);
    expect(text).toMatch(/\(UTC[+-]\d{2}:\d{2}\)$/);
  });
});

describe('prompts', () => {
  test('the first prompt carries the task and points at CLAUDE.md', () => {
    const task = 'Line one\n$(no) `shell` here';
    const p = initialPrompt(task);
    expect(p).toContain(task);
    expect(p).toContain('CLAUDE.md');
  });

  test.each([
    ['resume', RESUME_PROMPT, ['restarted', 'CLAUDE.md', 'questions.md', 'findings/']],
    ['synthesis', SYNTHESIS_PROMPT, ['Time is up', 'REPORT.md', 'findings/', 'questions.md']],
  ])('%s prompt', (_name, prompt, words) => {
    for (const w of words) expect(prompt).toContain(w);
  });
});

const q = (title: string, ...lines: string[]) =>
  [`## ${title}`, '- Best guess: yes', '- Why it matters: scope', '- Priority: high', ...lines, ''].join(
    '\n',
  );

describe('countOpenQuestions', () => {
  test.each([
    ['the header alone', QUESTIONS_HEADER, 0],
    ['empty', '', 0],
    ['one open question', QUESTIONS_HEADER + '\n' + q('Which licence?'), 1],
    ['two open, one answered', [QUESTIONS_HEADER, q('A?'), q('B?', 'Answer: MIT'), q('C?')].join('\n'), 2],
    ['Answer: lower case, indented', q('A?', '  answer: no'), 0],
    ['- **Answer:** bold in a list', q('A?', '- **Answer:** use Yjs'), 0],
    ['**Answer**: bold before the colon', q('A?', '**Answer**: later'), 0],
    ['* Answer: star bullet', q('A?', '* Answer: fine'), 0],
    ['"Answer" without a colon is no answer', q('A?', 'Answer pending'), 1],
    ['"the answer:" in prose is no answer', q('A?', 'I need the answer: soon'), 1],
    ['an answer belongs to its own question only', [q('A?', 'Answer: x'), q('B?')].join('\n'), 1],
    ['### sub-headings are not questions', q('A?', '### Details', 'more'), 1],
    ['# h1 is not a question', '# Questions\n\n# Another h1\n', 0],
    ['all answered', [QUESTIONS_HEADER, q('A?', 'Answer: a'), q('B?', 'Answer: b')].join('\n'), 0],
  ])('%s → %i', (_name, md, open) => {
    expect(countOpenQuestions(md)).toBe(open);
  });

  test.each([
    ['a ``` fence', q('A?', '```md', '## Not a question', 'Answer: not really', '```'), 1],
    ['a ~~~ fence', q('A?', '~~~', '## Not a question', '~~~'), 1],
    ['an indented fence', q('A?', '  ```', '## Nope', '  ```'), 1],
    ['a ```` fence holding paired ``` lines', q('A?', '````md', '```js', 'x', '```', '## Nope', '````'), 1],
    ['a ```` fence holding one ``` line', q('A?', '````md', '```js', '## Nope', '````'), 1],
    ['a ~~~ fence holding a ``` line', q('A?', '~~~', '```', '## Nope', '~~~'), 1],
  ])('headings and answers inside %s are ignored', (_name, md, open) => {
    expect(countOpenQuestions(md)).toBe(open);
  });
});
