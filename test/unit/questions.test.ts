import { describe, expect, test } from 'vitest';

import { QUESTIONS_HEADER } from '../../src/core/agent/briefing.js';
import {
  countOpen,
  parseQuestions,
  priorityOf,
  rankQuestions,
  type Question,
} from '../../src/core/agent/questions.js';

const q = (title: string, ...lines: string[]) =>
  [`## ${title}`, '- Best guess: yes', '- Why it matters: scope', '- Priority: high', ...lines, ''].join(
    '\n',
  );

describe("open questions counted (the dashboard's QUESTIONS column)", () => {
  test.each<{ name: string; md: string; want: number }>([
    { name: 'the header alone', md: QUESTIONS_HEADER, want: 0 },
    { name: 'empty', md: '', want: 0 },
    { name: 'one open question', md: QUESTIONS_HEADER + '\n' + q('Which licence?'), want: 1 },
    {
      name: 'two open, one answered',
      md: [QUESTIONS_HEADER, q('A?'), q('B?', 'Answer: MIT'), q('C?')].join('\n'),
      want: 2,
    },
    { name: 'Answer: lower case, indented', md: q('A?', '  answer: no'), want: 0 },
    { name: '- **Answer:** bold in a list', md: q('A?', '- **Answer:** use Yjs'), want: 0 },
    { name: '**Answer**: bold before the colon', md: q('A?', '**Answer**: later'), want: 0 },
    { name: '* Answer: star bullet', md: q('A?', '* Answer: fine'), want: 0 },
    { name: '"Answer" without a colon is no answer', md: q('A?', 'Answer pending'), want: 1 },
    { name: '"the answer:" in prose is no answer', md: q('A?', 'I need the answer: soon'), want: 1 },
    {
      name: 'an answer belongs to its own question only',
      md: [q('A?', 'Answer: x'), q('B?')].join('\n'),
      want: 1,
    },
    { name: '### sub-headings are not questions', md: q('A?', '### Details', 'more'), want: 1 },
    { name: '# h1 is not a question', md: '# Questions\n\n# Another h1\n', want: 0 },
    {
      name: 'all answered',
      md: [QUESTIONS_HEADER, q('A?', 'Answer: a'), q('B?', 'Answer: b')].join('\n'),
      want: 0,
    },
  ])('$name → $want open', ({ md, want }) => {
    expect(countOpen(parseQuestions(md))).toBe(want);
  });

  test.each<{ name: string; md: string; want: number }>([
    { name: 'a ``` fence', md: q('A?', '```md', '## Not a question', 'Answer: not really', '```'), want: 1 },
    { name: 'a ~~~ fence', md: q('A?', '~~~', '## Not a question', '~~~'), want: 1 },
    { name: 'an indented fence', md: q('A?', '  ```', '## Nope', '  ```'), want: 1 },
    {
      name: 'a ```` fence holding paired ``` lines',
      md: q('A?', '````md', '```js', 'x', '```', '## Nope', '````'),
      want: 1,
    },
    { name: 'a ```` fence holding one ``` line', md: q('A?', '````md', '```js', '## Nope', '````'), want: 1 },
    { name: 'a ~~~ fence holding a ``` line', md: q('A?', '~~~', '```', '## Nope', '~~~'), want: 1 },
  ])('headings and answers inside $name are ignored → $want open', ({ md, want }) => {
    expect(countOpen(parseQuestions(md))).toBe(want);
  });
});

describe('parseQuestions', () => {
  const one = (md: string) => parseQuestions(md)[0];
  test.each<{ name: string; md: string; want: Question }>([
    {
      name: 'the briefing format',
      md: q('Which licence?'),
      want: {
        title: 'Which licence?',
        priority: 'high',
        answered: false,
        bestGuess: 'yes',
        whyItMatters: 'scope',
      },
    },
    {
      name: 'an answer, kept word for word',
      md: q('Which store?', 'Answer: SQLite, as in the other service'),
      want: {
        title: 'Which store?',
        priority: 'high',
        answered: true,
        answer: 'SQLite, as in the other service',
        bestGuess: 'yes',
        whyItMatters: 'scope',
      },
    },
    {
      name: 'an answer running over two lines',
      md: '## Which store?\nAnswer: SQLite,\nbut only for the cache\n\nmore prose\n',
      want: {
        title: 'Which store?',
        priority: 'unknown',
        answered: true,
        answer: 'SQLite, but only for the cache',
      },
    },
    {
      name: 'bold markers everywhere',
      md: '## **Ship it?**\n**Best guess:** yes\n- **Why it matters**: the release\n**Priority:** High\n',
      want: {
        title: 'Ship it?',
        priority: 'high',
        answered: false,
        bestGuess: 'yes',
        whyItMatters: 'the release',
      },
    },
    {
      name: 'no fields at all',
      md: '## Is the API stable?\nI could not tell from the docs.\n',
      want: { title: 'Is the API stable?', priority: 'unknown', answered: false },
    },
    {
      name: 'an empty Answer: left for the person',
      md: '## Which region?\n- Priority: low\n- Answer:\n',
      want: { title: 'Which region?', priority: 'low', answered: false },
    },
    {
      name: 'a placeholder answer',
      md: '## Which region?\n- Priority: medium\n- Answer: _(your answer here)_\n',
      want: { title: 'Which region?', priority: 'medium', answered: false },
    },
    {
      name: 'an answer on the line after Answer:',
      md: '## Which region?\nAnswer:\neu-west-1\n',
      want: { title: 'Which region?', priority: 'unknown', answered: true, answer: 'eu-west-1' },
    },
    {
      name: 'closing hashes on the heading',
      md: '## Which region? ##\n',
      want: { title: 'Which region?', priority: 'unknown', answered: false },
    },
  ])('$name → $want.title', ({ md, want }) => {
    expect(one(md)).toEqual(want);
  });

  test('the header alone holds no question; its template section is not one', () => {
    expect(parseQuestions(QUESTIONS_HEADER)).toEqual([]);
  });

  test('a question after a fenced block that mentions ## is still found, the fenced one is not', () => {
    const md = [q('A?', '```md', '## Not a question', '```'), q('B?')].join('\n');
    expect(parseQuestions(md).map((x) => x.title)).toEqual(['A?', 'B?']);
  });
});

describe('priorityOf', () => {
  test.each<{ text: string; want: Question['priority'] }>([
    { text: 'high', want: 'high' },
    { text: 'High', want: 'high' },
    { text: '**HIGH**', want: 'high' },
    { text: 'P1', want: 'high' },
    { text: 'critical - blocks the release', want: 'high' },
    { text: 'medium', want: 'medium' },
    { text: 'Med', want: 'medium' },
    { text: 'p2', want: 'medium' },
    { text: 'low (nice to know)', want: 'low' },
    { text: 'medium to high', want: 'medium' },
    { text: 'high | medium | low', want: 'high' },
    { text: 'soon', want: 'unknown' },
    { text: '', want: 'unknown' },
    { text: 'highway', want: 'unknown' },
  ])('"$text" → $want', ({ text, want }) => {
    expect(priorityOf(text)).toBe(want);
  });
});

describe('rankQuestions', () => {
  const mk = (title: string, priority: Question['priority'], answered = false): Question => ({
    title,
    priority,
    answered,
  });
  test.each<{ name: string; given: Question[]; want: string[] }>([
    {
      name: 'highest priority first, unknown last among open ones',
      given: [mk('u', 'unknown'), mk('l', 'low'), mk('h', 'high'), mk('m', 'medium')],
      want: ['h', 'm', 'l', 'u'],
    },
    {
      name: 'file order among equals',
      given: [mk('h1', 'high'), mk('l', 'low'), mk('h2', 'high')],
      want: ['h1', 'h2', 'l'],
    },
    {
      name: 'answered ones after every open one, whatever their priority',
      given: [mk('a', 'high', true), mk('u', 'unknown')],
      want: ['u', 'a'],
    },
  ])('$name → $want', ({ given, want }) => {
    expect(rankQuestions(given).map((x) => x.title)).toEqual(want);
  });
});

describe('agent-written questions.md of any shape is parsed in linear time (issue 17)', () => {
  const MB = 1024 * 1024;
  test.each<{ name: string; md: string; want: number }>([
    { name: '1 MB of spaces', md: ' '.repeat(MB), want: 0 },
    { name: '1 MB of #', md: '#'.repeat(MB), want: 0 },
    { name: '1 MB of >', md: '>'.repeat(MB), want: 0 },
    { name: 'a question, then 1 MB of spaces', md: q('A?') + ' '.repeat(MB), want: 1 },
    { name: 'a heading of 1 MB of spaces', md: `## ${' '.repeat(MB)}x`, want: 1 },
    { name: 'a heading of 1 MB of #', md: `## ${'#'.repeat(MB)}`, want: 1 },
    { name: 'a field of 1 MB of spaces and stars', md: q('A?', `> - ${' *'.repeat(MB / 2)}answer`), want: 1 },
    { name: 'a mix of spaces, #, > and *', md: q('A?', ' # > * '.repeat(MB / 7)), want: 1 },
    { name: 'lines of spaces then an answer', md: q('A?', `${' '.repeat(MB)}Answer: yes`), want: 1 },
  ])('$name', ({ md, want }) => {
    const got = parseQuestions(md);
    expect(countOpen(got)).toBe(want);
    for (const question of got) expect(question.title.length).toBeLessThanOrEqual(500);
  });

  test('an answer of a megabyte is kept bounded', () => {
    const [got] = parseQuestions(
      q('A?', 'Answer: yes', ...Array.from({ length: 20_000 }, () => 'x'.repeat(50))),
    );
    expect(got?.answered).toBe(true);
    expect(got?.answer?.length).toBeLessThanOrEqual(16 * 1024);
  });

  test.each([
    ['## Which C# library? ##', 'Which C# library?'],
    ['## C#', 'C#'],
    ['## **Bold?** #', 'Bold?'],
    ['## ###', '(untitled question)'],
  ])('heading %s reads as %s', (line, title) => {
    expect(parseQuestions(`${line}\n`)[0]?.title).toBe(title);
  });
});
