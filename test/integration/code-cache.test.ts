import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

// bin/load.js on a small bundle of its own: V8's code cache is kept per build and Node version, a
// file for a pass, one for status, one for status --json and one for every other command, in dist/
// or, where it cannot be written there, in the user's private cache folder; a cache that is not
// one is never a failure.

const LOADER = join(import.meta.dirname, '..', '..', 'bin', 'load.js');
const HEAD =
  '(function (exports, require, module, __filename, __dirname, __import, __importMeta) {"use strict";';
const chunk = (body: string) => `${HEAD}${body}\n})`;
const VERSION = `${process.version}-${process.arch}`;

let dir: string;
let dist: string;
let home: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  dist = join(dir, 'dist');
  home = join(dir, 'home');
  mkdirSync(dist);
  mkdirSync(home);
  writeFileSync(join(dist, 'build.json'), JSON.stringify({ id: 'b1d' }) + '\n');
  writeFileSync(
    join(dist, 'main.js'),
    chunk(
      'const { say } = require("./say.js"); const w = process.argv[2] ?? "-";' +
        'function more() { return require("./more.js").more(w); }' +
        // As reconcile marks a pass that acted on nothing (src/app/code-cache.ts).
        'if (process.argv[3] === "steady") globalThis[Symbol.for("overnight.typicalRun")] = true;' +
        'say(process.argv[3] === "more" ? more() : w);',
    ),
  );
  writeFileSync(join(dist, 'more.js'), chunk('exports.more = (w) => `${w} and more`;'));
  writeFileSync(join(dist, 'say.js'), chunk('exports.say = (w) => process.stdout.write(`ran ${w}\\n`);'));
  // As bin/overnight.js starts the real bundle.
  writeFileSync(
    join(dir, 'cli.js'),
    `require(${JSON.stringify(LOADER)}).start(${JSON.stringify(dist)}, 'main.js');`,
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]): string {
  return execFileSync(process.execPath, [join(dir, 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: join(home, '.cache') },
  });
}
const caches = (at: string) =>
  readdirSync(at)
    .filter((f) => f.startsWith('code-cache-'))
    .sort();

describe('the code cache', () => {
  test('a file for a pass, one for status, one for status --json, one for the rest; each runs', () => {
    expect(run('reconcile')).toBe('ran reconcile\n');
    expect(run('status')).toBe('ran status\n');
    expect(run('status', '--json')).toBe('ran status\n');
    expect(run('launch')).toBe('ran launch\n');
    expect(run('stop')).toBe('ran stop\n');
    expect(caches(dist)).toEqual([
      `code-cache-other-${VERSION}.bin`,
      `code-cache-reconcile-${VERSION}.bin`,
      `code-cache-status-json-${VERSION}.bin`,
      `code-cache-status-${VERSION}.bin`,
    ]);
    // Used as it is: a command it has seen rewrites nothing.
    const made = statSync(join(dist, `code-cache-reconcile-${VERSION}.bin`)).mtimeMs;
    expect(run('reconcile')).toBe('ran reconcile\n');
    expect(statSync(join(dist, `code-cache-reconcile-${VERSION}.bin`)).mtimeMs).toBe(made);
  });

  test('a pass’s file is not grown by a later pass that ran more: only a new chunk is added', () => {
    const file = join(dist, `code-cache-reconcile-${VERSION}.bin`);
    const blobs = () =>
      Object.fromEntries(
        (JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string) as { chunks: [string, number][] })
          .chunks,
      );
    expect(run('reconcile')).toBe('ran reconcile\n');
    const first = blobs();
    expect(Object.keys(first).sort()).toEqual(['main.js', 'say.js']);
    expect(run('reconcile', 'more')).toBe('ran reconcile and more\n');
    const second = blobs();
    expect(second).toEqual({ ...first, 'more.js': second['more.js'] });
    // The shared file takes each run's functions in.
    expect(run('launch')).toBe('ran launch\n');
    expect(run('launch', 'more')).toBe('ran launch and more\n');
  });

  test('a pass’s file is made again from typical runs: a run that acted is not deserialized by each', () => {
    const file = join(dist, `code-cache-reconcile-${VERSION}.bin`);
    const head = () =>
      JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string) as {
        typical: boolean;
        chunks: [string, number][];
      };
    const blob = (name: string) => Object.fromEntries(head().chunks)[name] as number | undefined;
    expect(run('reconcile', 'more')).toBe('ran reconcile and more\n');
    const fat = blob('main.js') as number;
    // A typical run given those blobs would make them as fat: it drops them instead.
    expect(run('reconcile', 'steady')).toBe('ran reconcile\n');
    expect(head().typical).toBe(false);
    expect(blob('main.js')).toBeUndefined();
    // The next one compiles them afresh and keeps what it made.
    expect(run('reconcile', 'steady')).toBe('ran reconcile\n');
    expect(head().typical).toBe(true);
    expect(blob('main.js')).toBeLessThan(fat);
    const lean = blob('main.js');
    expect(run('reconcile', 'more')).toBe('ran reconcile and more\n');
    expect(blob('main.js')).toBe(lean);
    const made = statSync(file).mtimeMs;
    expect(run('reconcile', 'steady')).toBe('ran reconcile\n');
    expect(statSync(file).mtimeMs).toBe(made);
  });

  test('a cache that is not one (garbage, another build) is never a failure, and is made again', () => {
    const file = join(dist, `code-cache-reconcile-${VERSION}.bin`);
    writeFileSync(file, 'garbage\nmore');
    expect(run('reconcile')).toBe('ran reconcile\n');
    expect(statSync(file).size).toBeGreaterThan(100);
    writeFileSync(join(dist, 'build.json'), JSON.stringify({ id: 'other' }) + '\n');
    expect(run('reconcile')).toBe('ran reconcile\n');
  });

  test('where dist/ cannot take it, in the user’s private cache folder, earlier builds’ removed', () => {
    // A directory where the file would go: no rename replaces it, whoever runs this.
    mkdirSync(join(dist, `code-cache-reconcile-${VERSION}.bin`));
    const own = join(home, '.cache', 'overnight');
    mkdirSync(own, { recursive: true, mode: 0o700 });
    writeFileSync(join(own, `code-cache-old-reconcile-${VERSION}.bin`), 'x');
    expect(run('reconcile')).toBe('ran reconcile\n');
    expect(caches(own)).toEqual([`code-cache-b1d-reconcile-${VERSION}.bin`]);
    expect(statSync(own).mode & 0o777).toBe(0o700);
    expect(run('reconcile')).toBe('ran reconcile\n');
  });
});
