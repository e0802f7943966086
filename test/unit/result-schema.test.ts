import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import { validate } from '../helpers/json-schema.js';

// result.json's schema (schema/result.schema.json): the docs' example fits it, and the checker
// the integration tests validate real result.json files with does find what does not.

const SCHEMA = JSON.parse(
  readFileSync(new URL('../../schema/result.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** docs/records.md's example of result.json (the first ```json block after its heading). */
function docsExample(): Record<string, unknown> {
  const page = readFileSync(new URL('../../docs/records.md', import.meta.url), 'utf8');
  const from = page.indexOf('## result.json');
  const block = /```json\n([\s\S]*?)\n```/.exec(page.slice(from));
  return JSON.parse(block?.[1] ?? '{}') as Record<string, unknown>;
}

describe('result.json schema', () => {
  test("the docs' example fits the schema", () => {
    expect(validate(SCHEMA, docsExample())).toEqual([]);
  });

  test('what does not fit is found, with where', () => {
    const good = docsExample();
    const bad = {
      ...good,
      schema: 1,
      verify: { command: 'x', verdict: 'probably fine' },
      openQuestions: { high: [1] },
    };
    delete (bad as Record<string, unknown>).report;
    expect(validate(SCHEMA, bad)).toEqual([
      '$: report is missing',
      '$.schema: expected 2',
      '$.verify.verdict: "probably fine" is not one of verified, not-verified, unchanged, error, none',
      '$.openQuestions: medium is missing',
      '$.openQuestions: low is missing',
      '$.openQuestions: unknown is missing',
      '$.openQuestions.high[0]: integer, expected string',
    ]);
  });
});
