/* eslint-disable no-control-regex -- control characters are what these tests are about */
import { describe, expect, test } from 'vitest';

import { ANSI, NO_COLOR, renderLine } from '../../src/core/agent/render.js';
import { localTime } from '../../src/core/local-time.js';
import { formatBoard } from '../../src/core/status/board.js';
import { runDetails } from '../../src/core/status/details.js';
import {
  hasRawControl,
  headline,
  HEADLINE_MAX,
  jsonList,
  jsonListItem,
  safeJson,
  safeJsonText,
  safeLine,
  safeText,
} from '../../src/core/text.js';

// Text from the agent, the task or a file never reaches a terminal as a control sequence.

const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07'; // writes the clipboard
const TITLE = '\x1b]0;owned\x07';
const CLEAR = '\x1b[2J\x1b[H';
const HIDDEN = '\x1b[8msecret\x1b[0m';
const CSI_C1 = '\u009b31m';

/** Any byte a terminal would act on, newline and tab aside. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('safeText', () => {
  test.each<{ name: string; text: string; want: string }>([
    { name: 'plain text', text: 'Survey CRDT libraries', want: 'Survey CRDT libraries' },
    { name: 'newline and tab kept', text: 'a\n\tb', want: 'a\n\tb' },
    { name: 'OSC 52 clipboard write', text: OSC52, want: '\\x1b]52;c;ZWNobyBwd25lZA==\\x07' },
    { name: 'OSC 0 title', text: TITLE, want: '\\x1b]0;owned\\x07' },
    { name: 'screen clear', text: CLEAR, want: '\\x1b[2J\\x1b[H' },
    { name: 'hidden text', text: HIDDEN, want: '\\x1b[8msecret\\x1b[0m' },
    { name: 'C1 CSI', text: CSI_C1, want: '\\x9b31m' },
    { name: 'carriage return, NUL, DEL', text: 'a\rb\0c\x7f', want: 'a\\x0db\\x00c\\x7f' },
    { name: 'bidi override', text: 'abc\u202Edef', want: 'abc\\u202edef' },
    { name: 'non-ASCII letters kept', text: 'café ✓ 日本', want: 'café ✓ 日本' },
  ])('$name → $want', ({ text, want }) => {
    expect(safeText(text)).toBe(want);
  });

  test('safeLine puts a newline on the same line', () => {
    expect(safeLine(`one\ntwo${OSC52}`)).toBe('one two\\x1b]52;c;ZWNobyBwd25lZA==\\x07');
  });

  test('safeJson reads back the same value, with no raw control character in it', () => {
    const value = { task: `a${OSC52}b${CSI_C1}\u202E\x7f`, n: 1 };
    const text = safeJson(value, 2);
    expect(text).not.toMatch(CONTROL);
    expect(JSON.parse(text)).toEqual(value);
  });

  test('hasRawControl finds in UTF-8 exactly what safeJsonText escapes, and C0 but newline', () => {
    const points = [...Array(0x2100).keys(), 0x3000, 0x1f600, 0xfeff, 0x10ffff];
    for (const cp of points) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const raw = (cp < 0x20 && cp !== 0x0a) || safeJsonText(ch) !== ch;
      expect(hasRawControl(Buffer.from(`a${ch}b`)), cp.toString(16)).toBe(raw);
    }
    expect(hasRawControl(Buffer.from('{"a": "Résumé … 日本 ©"}\n'))).toBe(false);
  });

  test('a list printed from its items kept as text is exactly safeJson(list, 2)', () => {
    const whole = (bytes: Buffer) => ({ bytes, start: 0, end: bytes.length });
    const rows = [
      { id: 'a', task: `a${OSC52}b${CSI_C1}\u202E\x7f`, nested: { list: [1, { x: 'y\nz' }], empty: [] } },
      { id: 'b', task: 'Résumé 日本', none: null, gone: undefined },
      {},
    ];
    for (const list of [rows, rows.slice(0, 1), []]) {
      const items = list.map((r, i) => (i % 2 === 0 ? jsonListItem(r) : whole(Buffer.from(jsonListItem(r)))));
      expect(Buffer.from(jsonList(items)).toString('utf8')).toBe(safeJson(list, 2));
    }
    // Items one after the other in one buffer, a comma and a newline between (the row cache's
    // file): copied as one piece, and what is printed is the same.
    const texts = rows.map((r) => jsonListItem(r));
    const file = Buffer.from(`head\n${texts.join(',\n')},\n`);
    let at = 5;
    const views = texts.map((t) => {
      const view = { bytes: file, start: at, end: at + Buffer.byteLength(t) };
      at = view.end + 2;
      return view;
    });
    expect(Buffer.from(jsonList(views)).toString('utf8')).toBe(safeJson(rows, 2));
    expect(Buffer.from(jsonList([views[0]!, 'x', views[1]!, views[2]!])).toString('utf8')).toBe(
      `[\n${texts[0]},\nx,\n${texts[1]},\n${texts[2]}\n]`,
    );
    // Two bytes between that are not a comma and a newline: each printed on its own.
    const other = Buffer.from(`${texts[0]};;${texts[1]}`);
    const first = Buffer.byteLength(texts[0]!);
    const [a, b] = [
      { bytes: other, start: 0, end: first },
      { bytes: other, start: first + 2, end: other.length },
    ];
    expect(Buffer.from(jsonList([a, b])).toString('utf8')).toBe(`[\n${texts[0]},\n${texts[1]}\n]`);
  });
});

describe('headline', () => {
  test.each<{ name: string; text: string; want: string }>([
    { name: 'one line', text: 'Survey CRDT libraries', want: 'Survey CRDT libraries' },
    {
      name: 'the first of several lines (the caller says more follows)',
      text: 'Survey CRDT libraries\n\nFocus on Yjs.',
      want: 'Survey CRDT libraries',
    },
    { name: 'leading blank lines', text: '\n\n  Fix the tests  \r\nthen more', want: 'Fix the tests' },
    { name: 'Windows line ends', text: 'First\r\nSecond', want: 'First' },
    { name: 'an escape sequence', text: `Red ${TITLE}alert\u0007`, want: 'Red \\x1b]0;owned\\x07alert\\x07' },
    { name: 'a long line, cut', text: 'x'.repeat(150), want: `${'x'.repeat(99)}…` },
    { name: 'exactly the maximum', text: 'y'.repeat(100), want: 'y'.repeat(100) },
    { name: 'letters beyond the BMP, cut whole', text: '𠀋'.repeat(120), want: `${'𠀋'.repeat(99)}…` },
    { name: 'nothing but blanks', text: ' \n\t\n', want: '' },
    { name: 'empty', text: '', want: '' },
  ])('$name → $want', ({ text, want }) => {
    expect(headline(text)).toBe(want);
  });

  test('a 1 MB brief gives its first line', () => {
    expect(headline(`Night brief\n${'lorem ipsum '.repeat(90_000)}`)).toBe('Night brief');
  });
});

describe('what is printed from the agent and the files', () => {
  const evil = `look${OSC52}${TITLE}${CLEAR}${HIDDEN}${CSI_C1}`;
  test.each<{ name: string; line: unknown }>([
    {
      name: 'assistant text',
      line: { type: 'assistant', message: { content: [{ type: 'text', text: evil }] } },
    },
    {
      name: 'a tool call argument',
      line: {
        type: 'assistant',
        message: { content: [{ type: 'tool_use', name: `Bash${TITLE}`, input: { command: evil } }] },
      },
    },
    {
      name: 'a tool error',
      line: {
        type: 'user',
        message: { content: [{ type: 'tool_result', is_error: true, content: evil }] },
      },
    },
    { name: 'a result', line: { type: 'result', subtype: 'success', is_error: true, result: evil } },
    { name: 'a clean result', line: { type: 'result', subtype: 'success', is_error: false, result: evil } },
    { name: 'init', line: { type: 'system', subtype: 'init', session_id: evil, model: evil } },
    { name: 'a non-JSON line', line: evil },
  ])('logs: $name → no control sequence, with or without colour', ({ line }) => {
    const raw = typeof line === 'string' ? line : JSON.stringify(line);
    const plain = renderLine(raw, NO_COLOR).join('\n');
    expect(plain).not.toMatch(CONTROL);
    expect(plain).toContain('\\x1b]52');
    // With colour, only overnight's own SGR sequences remain.
    const coloured = renderLine(raw, ANSI)
      .join('\n')
      .replace(/\x1b\[\d*m/g, '');
    expect(coloured).not.toMatch(CONTROL);
  });

  test('status table: reasons and warnings', () => {
    const lines = formatBoard(
      [
        {
          id: '2026-11-21-2315-x',
          state: 'failed',
          endsAt: null,
          restarts: 0,
          maxRestarts: 5,
          findings: 0,
          questions: 0,
          lastOutputAt: null,
          reason: `the agent is waiting for input nobody will give: "${evil}"`,
          warnings: [{ code: 'other', text: evil }],
          permissionDenials: { count: 1, tools: [{ name: evil, count: 1 }] },
        },
      ],
      new Date('2026-11-22T03:00:00Z'),
      { width: 100, colour: false, clock: localTime('UTC') },
    );
    for (const line of lines) expect(line).not.toMatch(CONTROL);
    expect(lines.join('\n')).toContain('\\x1b]0;owned');
  });

  test('status details: a multi-line task shows its first line and "…"; nothing is obeyed', () => {
    const lines = runDetails(
      {
        id: '2026-11-21-2315-x',
        task: `Survey ${TITLE}CRDT libraries\nSecond line\n${CLEAR}`,
        workspace: '/runs/2026-11-21-2315-x',
        session: 'overnight-2026-11-21-2315-x',
        state: 'waiting',
        startedAt: null,
        endsAt: null,
        restarts: 0,
        maxRestarts: 5,
        findings: 0,
        questions: 0,
        lastOutputAt: null,
        reason: evil,
        warnings: [{ code: 'other', text: `a\nb${OSC52}` }],
      },
      { report: false },
      new Date('2026-11-22T03:00:00Z'),
      localTime('UTC'),
    );
    expect(lines).toContain(
      'task:       Survey \\x1b]0;owned\\x07CRDT libraries … (the whole task is in /runs/2026-11-21-2315-x/CLAUDE.md)',
    );
    expect(lines).toContain('warning:    a b\\x1b]52;c;ZWNobyBwd25lZA==\\x07');
    for (const line of lines) expect(line).not.toMatch(/[\n\x1b\x9b]/);
  });
});

describe('first lines of agent-written text are found in one pass (issue 17)', () => {
  test.each<{ name: string; text: string; want: string }>([
    { name: '1 MB of spaces', text: ' '.repeat(1 << 20), want: '' },
    { name: '1 MB of spaces, then a word', text: `${' '.repeat(1 << 20)}word`, want: 'word' },
    { name: 'blank lines first', text: '\n \r\n  Night brief  \r\nmore', want: 'Night brief' },
    { name: '1 MB of #', text: '#'.repeat(1 << 20), want: '#'.repeat(HEADLINE_MAX - 1) + '…' },
    { name: '1 MB of >', text: `${'>'.repeat(1 << 20)}\nnext`, want: '>'.repeat(HEADLINE_MAX - 1) + '…' },
  ])('$name', ({ text, want }) => {
    expect(headline(text)).toBe(want);
  });
});
