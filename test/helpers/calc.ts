// A small real project with a `node --test` suite, for verified nights: three tests, one of which
// (multiplies) fails before the night.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { git } from './git.js';

export const MATH = (sub: string, mul: string) =>
  `export const add = (a, b) => a + b;\nexport const sub = (a, b) => ${sub};\nexport const mul = (a, b) => ${mul};\n`;

export const TESTS = `import test from 'node:test';
import assert from 'node:assert/strict';
import { add, sub, mul } from '../math.mjs';
test('adds', () => assert.equal(add(2, 3), 5));
test('subtracts', () => assert.equal(sub(5, 3), 2));
test('multiplies', () => assert.equal(mul(2, 3), 6));
`;

/** The project committed on `main`; multiplies fails there. */
export async function makeProject(dir: string, extra: Record<string, string> = {}): Promise<string> {
  const repo = join(dir, 'calc');
  mkdirSync(join(repo, 'test'), { recursive: true });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.name', 'Night Tester');
  await git(repo, 'config', 'user.email', 'night@example.com');
  writeFileSync(join(repo, 'math.mjs'), MATH('a - b', 'a + b'));
  writeFileSync(join(repo, 'test', 'math.test.mjs'), TESTS);
  for (const [path, text] of Object.entries(extra)) writeFileSync(join(repo, path), text);
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'Calculator');
  return repo;
}
