import { describe, expect, test } from 'vitest';

import { junitPath } from '../../src/core/verify/junit-path.js';
import { parseJunit } from '../../src/core/verify/parse-junit.js';

// verify_junit: the JUnit XML file a check writes. Its path is one below the working directory;
// the parser reads it once (indexOf, no backtracking), cut to a size cap, names bounded.

describe('parseJunit', () => {
  test('attributes across lines, in single quotes; errors are failures; skipped ones are neither', () => {
    const xml = `<testsuites><testsuite name="all">
      <testcase
        classname='calc'
        name='divides'>
        <error type="TypeError">x</error>
      </testcase>
      <testcase classname="calc" name="adds"></testcase>
      <testcase name="later"><skipped/></testcase>
    </testsuite></testsuites>`;
    expect(parseJunit(xml)).toEqual({
      format: 'junit',
      passed: 1,
      failed: 1,
      skipped: 1,
      failures: ['calc divides'],
      tests: { 'calc divides': [0, 1, 0], 'calc adds': [1, 0, 0], later: [0, 0, 1] },
    });
  });

  test('<testcases> is not a test case; no test case at all is null', () => {
    expect(parseJunit('<testcases></testcases>')).toBeNull();
    expect(parseJunit('not xml at all')).toBeNull();
  });

  test('hostile files: unterminated tags, a huge one, many failures: bounded', () => {
    expect(parseJunit('<testcase name="a"')).toEqual({
      format: 'junit',
      passed: 0,
      failed: 0,
      skipped: 0,
      failures: [],
      tests: null,
    });
    const open = '<testcase name="x'.repeat(100_000);
    expect(parseJunit(`${open}>`)?.passed).toBe(1);
    const many = Array.from({ length: 5000 }, (_, i) => `<testcase name="t${i}"><failure/></testcase>`);
    const r = parseJunit(`<testsuite>${many.join('')}</testsuite>`);
    expect(r?.failed).toBe(5000);
    expect(r?.failures).toHaveLength(200);
    const long = parseJunit(`<testcase name="${'n'.repeat(10_000)}"><failure/></testcase>`);
    expect(long?.failures[0]?.length).toBe(200);
  });

  test('past the size cap the file is cut: what follows is not read', () => {
    const pad = `<!-- ${'x'.repeat(5 * 1024 * 1024)} -->`;
    const r = parseJunit(`<testcase name="a"/>${pad}<testcase name="b"><failure/></testcase>`);
    expect(r).toMatchObject({ passed: 1, failed: 0 });
  });
});

describe('verify_junit: a path below the working directory', () => {
  test.each([
    ['reports/junit.xml', 'reports/junit.xml'],
    ['./junit.xml', 'junit.xml'],
    ['  out/a b.xml ', 'out/a b.xml'],
  ])('%j is %j', (raw, want) => expect(junitPath(raw)).toBe(want));

  test.each([
    '',
    '/tmp/junit.xml',
    '../junit.xml',
    'a/../../b.xml',
    'a//b.xml',
    'dir/',
    '-x.xml',
    'a\nb',
    42,
  ])('%j is refused', (raw) => expect(junitPath(raw)).toBeNull());
});
