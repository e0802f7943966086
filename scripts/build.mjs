// Bundles the CLI into dist/: a few chunks load much faster than a tree of modules (startup is
// most of a reconcile pass). Heavy modules loaded with import() become separate chunks.
//
// The chunks are then turned into CommonJS function expressions that bin/overnight.js compiles
// itself with vm.Script (written whole, so the loader makes no second copy of each source): Node 20's ES module loader costs more than the code it loads (an async job per
// chunk, fs/promises to read them), and only a script can be given V8's code cache. See
// bin/load.cjs. Each chunk keeps its name; import() of a chunk becomes __import(), resolved by
// that loader, and import.meta.url becomes the chunk's own file URL (made when first read).
//
// Built beside dist/ and swapped in, so wrappers running all night never find it half written.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { build, transform } from 'esbuild';

/** Each chunk, a function of what bin/load.js passes it, in this order. */
const HEAD =
  '(function (exports, require, module, __filename, __dirname, __import, __importMeta) {"use strict";';

const next = `dist.next-${process.pid}`;
const old = `dist.old-${process.pid}`;
const { outputFiles } = await build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: next,
  write: false,
  logLevel: 'warning',
  define: { 'import.meta.url': '__importMeta.url' },
  plugins: [lazyChildProcess(), plainFsForLock()],
});

const hash = createHash('sha256');
mkdirSync(next);
for (const file of outputFiles.sort((a, b) => a.path.localeCompare(b.path))) {
  const name = basename(file.path);
  const { code } = await transform(file.text, {
    format: 'cjs',
    loader: 'js',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  // Only literal import()s of chunks and of node: builtins are left; any other is a build error.
  const body = code
    .replace(/\bimport\((?="(?:\.\/|node:))/g, '__import(')
    // The exports object itself, not a copy whose every read goes through a second getter.
    .replace(/^module\.exports = __toCommonJS\((\w+)\);$/m, 'module.exports = $1;');
  const left = /\bimport\(/.exec(body);
  if (left)
    throw new Error(
      `${name}: an import() the loader cannot resolve: ${body.slice(left.index, left.index + 80)}`,
    );
  writeFileSync(join(next, name), `${HEAD}${body}\n})`);
  hash.update(name).update('\0').update(body).update('\0');
}
// What the code cache is keyed on: a cache made for another build is never used.
writeFileSync(join(next, 'build.json'), JSON.stringify({ id: hash.digest('hex').slice(0, 32) }) + '\n');
if (existsSync('dist')) renameSync('dist', old);
renameSync(next, 'dist');
rmSync(old, { recursive: true, force: true });

/**
 * node:child_process costs a command several ms at load (it brings the stream, net and dgram
 * modules), and a steady pass, whose agents all run, spawns nothing. Every import of it (commander
 * requires it for subcommands that are executables, which overnight has none of; the backends and
 * checks spawn) gets the same functions, looked up on first use.
 */
function lazyChildProcess() {
  const names = Object.keys(createRequire(import.meta.url)('node:child_process'));
  return {
    name: 'lazy-child-process',
    setup(b) {
      b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
        args.namespace === 'lazy'
          ? { path: 'node:child_process', external: true }
          : { path: 'lazy-child-process', namespace: 'lazy' },
      );
      b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
        contents: [
          'let cp;',
          "const real = () => (cp ??= require('node:child_process'));",
          `for (const k of ${JSON.stringify(names)})`,
          '  Object.defineProperty(module.exports, k, { get: () => real()[k], enumerable: true });',
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/**
 * proper-lockfile takes graceful-fs, whose loading (it patches fs and reads every fs stream class)
 * brings the stream, readline and fs/promises modules: a third of what a pass loads of Node. A
 * lock's few mkdir, stat and utimes calls need none of its retries on EMFILE: it gets node:fs.
 * Its signal-exit checks one argument with node:assert (which brings the stream and net modules):
 * the real assert is loaded only when that check fails.
 */
function plainFsForLock() {
  return {
    name: 'plain-fs-for-lock',
    setup(b) {
      b.onResolve({ filter: /^graceful-fs$/ }, (args) =>
        /[\\/]proper-lockfile[\\/]/.test(args.importer) ? { path: 'node:fs', external: true } : undefined,
      );
      b.onResolve({ filter: /^assert$/ }, (args) =>
        /[\\/]signal-exit[\\/]/.test(args.importer)
          ? { path: 'assert', namespace: 'lazy-assert' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'lazy-assert' }, () => ({
        contents:
          "module.exports = { equal(a, b, message) { if (a != b) require('node:assert').equal(a, b, message); } };",
        loader: 'js',
      }));
    },
  };
}
