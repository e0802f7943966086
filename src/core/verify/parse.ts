import { outputLines } from './lines.js';
import { parseJest, parseVitest } from './parse-js.js';
import { parseJunit } from './parse-junit.js';
import { parseNodeTest } from './parse-node.js';
import { parseCargoTest, parseGoTest, parsePytest } from './parse-others.js';
import type { TestCounts } from './types.js';

// A check's output to counts: the first known format that recognizes it. Null: an unknown
// format, judged by the exit code alone.

export function parseTestOutput(output: string): TestCounts | null {
  const lines = outputLines(output);
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
