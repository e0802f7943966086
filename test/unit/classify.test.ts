import { expect, test } from 'vitest';

import {
  classifyEnd,
  waitingPrompt,
  type EndClass,
  type EndSigns,
} from '../../src/core/supervise/classify.js';

const ok = { isError: false, subtype: 'success', text: 'done' };
const err = (text: string, extra: Partial<NonNullable<EndSigns['result']>> = {}) => ({
  isError: true,
  subtype: 'success',
  text,
  ...extra,
});
const facts = (over: Partial<EndSigns>): EndSigns => ({
  exitCode: 1,
  result: null,
  limited: false,
  auth: false,
  reportExists: false,
  stoppedByUs: false,
  ...over,
});

test.each<{ name: string; facts: Partial<EndSigns>; want: EndClass }>([
  {
    name: 'a result, no error, REPORT.md',
    facts: { exitCode: 0, result: ok, reportExists: true },
    want: 'finished',
  },
  { name: 'a result, no error, no report', facts: { exitCode: 0, result: ok }, want: 'clean-exit' },
  { name: 'exit 0 without a result (SIGINT)', facts: { exitCode: 0 }, want: 'interrupted' },
  {
    name: 'a usage limit',
    facts: { limited: true, result: err("You've hit your limit") },
    want: 'usage-limit',
  },
  { name: 'refused credentials', facts: { auth: true, result: err('Invalid API key') }, want: 'auth' },
  {
    name: '529 overloaded',
    facts: { result: err('API Error: 529 Overloaded', { apiErrorStatus: 529 }) },
    want: 'api-trouble',
  },
  { name: 'overloaded by its words', facts: { result: err('API Error: Overloaded') }, want: 'api-trouble' },
  {
    name: 'a per-minute 429 (not a usage limit)',
    facts: {
      result: err('API Error: Request rejected (429) · per-minute rate limit', {
        apiErrorStatus: 429,
        apiErrorType: 'rate_limit_error',
      }),
    },
    want: 'api-trouble',
  },
  {
    name: 'a 500 from the API',
    facts: { result: err('API Error: 500 Internal server error', { apiErrorStatus: 500 }) },
    want: 'api-trouble',
  },
  {
    name: 'a 429 that is the usage limit',
    facts: {
      limited: true,
      result: err("You've hit your 5-hour limit", { apiErrorStatus: 429, apiError: 'usage_limit_reached' }),
    },
    want: 'usage-limit',
  },
  {
    name: 'a 401 is refused credentials, not API trouble',
    facts: { auth: true, result: err('Invalid API key', { apiErrorStatus: 401 }) },
    want: 'auth',
  },
  { name: 'SIGKILL nobody here sent', facts: { exitCode: 137 }, want: 'out-of-memory' },
  { name: 'SIGKILL overnight sent (a hang)', facts: { exitCode: 137, stoppedByUs: true }, want: 'crash' },
  {
    name: 'max turns',
    facts: { result: { isError: true, subtype: 'error_max_turns', text: '' } },
    want: 'max-turns',
  },
  {
    name: 'max budget',
    facts: { result: { isError: true, subtype: 'error_max_budget_usd', text: '' } },
    want: 'max-budget',
  },
  { name: 'exit 1 with an error', facts: { result: err('API Error: 500') }, want: 'crash' },
  { name: 'no exit record at all', facts: { exitCode: null }, want: 'crash' },
  {
    name: 'no exit record after a clean result (the wrapper killed)',
    facts: { exitCode: null, result: ok },
    want: 'clean-exit',
  },
  {
    name: 'no exit record after an error result',
    facts: { exitCode: null, result: err('API Error: 500') },
    want: 'crash',
  },
])('$name → $want', ({ facts: over, want }) => {
  expect(classifyEnd(facts(over))).toBe(want);
});

test.each<{ tail: string; want: string | null }>([
  {
    tail: 'Do you trust the files in this folder?\n❯ 1. Yes, proceed\n  2. No, exit\n',
    want: '❯ 1. Yes, proceed',
  },
  { tail: 'Press Enter to continue…\n', want: 'Press Enter to continue…' },
  { tail: 'Do you want to use this API key? (y/n)\n', want: 'Do you want to use this API key? (y/n)' },
  { tail: 'Overwrite the file? [Y/n] ', want: 'Overwrite the file? [Y/n]' },
  {
    tail: '{"type":"assistant","message":{"content":[{"type":"text","text":"Press Enter to continue"}]}}\n',
    want: null,
  },
  { tail: 'The paper asks (y/n) questions of its readers and moves on.\n', want: null },
  { tail: 'Error: boom\n    at x (y.js:1:1)\n', want: null },
  { tail: '', want: null },
  { tail: 'Proceed? (y/n) :\n', want: 'Proceed? (y/n) :' },
  // Linear on any output (issue 17): a prompt pattern never rescans a megabyte of spaces.
  { tail: `(y/n)${' '.repeat(1 << 20)}x\n`, want: null },
  { tail: `[y/n]${' '.repeat(1 << 20)}x\n`, want: null },
  { tail: ' '.repeat(1 << 20), want: null },
])('waitingPrompt $tail → $want', ({ tail, want }) => {
  expect(waitingPrompt(tail)).toBe(want);
});
