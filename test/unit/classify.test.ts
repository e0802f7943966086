import { expect, test } from 'vitest';

import {
  classifyEnd,
  waitingPrompt,
  type EndClass,
  type EndFacts,
} from '../../src/core/supervise/classify.js';

const ok = { isError: false, subtype: 'success', text: 'done' };
const err = (text: string, extra: Partial<NonNullable<EndFacts['result']>> = {}) => ({
  isError: true,
  subtype: 'success',
  text,
  ...extra,
});
const facts = (over: Partial<EndFacts>): EndFacts => ({
  exitCode: 1,
  result: null,
  limited: false,
  auth: false,
  reportExists: false,
  stoppedByUs: false,
  ...over,
});

test.each<[string, Partial<EndFacts>, EndClass]>([
  ['a result, no error, REPORT.md', { exitCode: 0, result: ok, reportExists: true }, 'finished'],
  ['a result, no error, no report', { exitCode: 0, result: ok }, 'clean-exit'],
  ['exit 0 without a result (SIGINT)', { exitCode: 0 }, 'interrupted'],
  ['a usage limit', { limited: true, result: err("You've hit your limit") }, 'usage-limit'],
  ['refused credentials', { auth: true, result: err('Invalid API key') }, 'auth'],
  ['529 overloaded', { result: err('API Error: 529 Overloaded', { apiErrorStatus: 529 }) }, 'overloaded'],
  ['overloaded by its words', { result: err('API Error: Overloaded') }, 'overloaded'],
  ['SIGKILL nobody here sent', { exitCode: 137 }, 'out-of-memory'],
  ['SIGKILL overnight sent (a hang)', { exitCode: 137, stoppedByUs: true }, 'crash'],
  ['max turns', { result: { isError: true, subtype: 'error_max_turns', text: '' } }, 'max-turns'],
  ['max budget', { result: { isError: true, subtype: 'error_max_budget_usd', text: '' } }, 'max-budget'],
  ['exit 1 with an error', { result: err('API Error: 500') }, 'crash'],
  ['no exit record at all', { exitCode: null }, 'crash'],
])('%s → %s', (_name, over, want) => {
  expect(classifyEnd(facts(over))).toBe(want);
});

test.each<[string, string | null]>([
  ['Do you trust the files in this folder?\n❯ 1. Yes, proceed\n  2. No, exit\n', '❯ 1. Yes, proceed'],
  ['Press Enter to continue…\n', 'Press Enter to continue…'],
  ['Do you want to use this API key? (y/n)\n', 'Do you want to use this API key? (y/n)'],
  ['Overwrite the file? [Y/n] ', 'Overwrite the file? [Y/n]'],
  ['{"type":"assistant","message":{"content":[{"type":"text","text":"Press Enter to continue"}]}}\n', null],
  ['The paper asks (y/n) questions of its readers and moves on.\n', null],
  ['Error: boom\n    at x (y.js:1:1)\n', null],
  ['', null],
])('waitingPrompt %j', (tail, prompt) => {
  expect(waitingPrompt(tail)).toBe(prompt);
});
