import { outputLines, PARSE_MAX_BYTES } from './lines.js';
import { parseJest, parseVitest } from './parse-js.js';
import { parseJunit } from './parse-junit.js';
import { parseNodeTest } from './parse-node.js';
import { parseCargoTest, parseGoTest, parsePytest } from './parse-others.js';
import type { TestCounts } from './types.js';

// A check's output to counts: the first known format that recognizes it. Null: an unknown
// format, judged by the exit code alone. `whole`: the output is all the check printed (its log was
// not cut at its size limit); tests are accounted for by name only then.

export function parseTestOutput(output: string, whole = true): TestCounts | null {
  const lines = outputLines(output);
  const found = parse(lines, output);
  if (!found || (whole && output.length <= PARSE_MAX_BYTES)) return found;
  return { ...found, tests: null };
}

function parse(lines: string[], output: string): TestCounts | null {
  return (
    parseNodeTest(lines) ??
    parseVitest(lines) ??
    parseJest(lines) ??
    parsePytest(lines) ??
    parseCargoTest(lines) ??
    parseGoTest(lines) ??
    (output.includes('<testsuite') ? parseJunit(output) : null)
  );
}
