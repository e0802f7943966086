// Bundles the CLI into dist/: a few chunks load much faster than a tree of modules (startup is
// most of a reconcile pass). Heavy modules loaded with import() become separate chunks.
//
// The chunks are then turned into CommonJS function bodies that bin/overnight.js compiles itself
// with vm.Script: Node 20's ES module loader costs more than the code it loads (an async job per
// chunk, fs/promises to read them), and only a script can be given V8's code cache. See
// bin/load.cjs. Each chunk keeps its name; import() of a chunk becomes __import(), resolved by
// that loader, and import.meta.url becomes the chunk's own file URL.
//
// Built beside dist/ and swapped in, so wrappers running all night never find it half written.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, transform } from 'esbuild';

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
  define: { 'import.meta.url': '__importMetaUrl' },
  plugins: [lazyChildProcess()],
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
  writeFileSync(join(next, name), body);
  hash.update(name).update('\0').update(body).update('\0');
}
// What the code cache is keyed on: a cache made for another build is never used.
writeFileSync(join(next, 'build.json'), JSON.stringify({ id: hash.digest('hex').slice(0, 32) }) + '\n');
if (existsSync('dist')) renameSync('dist', old);
renameSync(next, 'dist');
rmSync(old, { recursive: true, force: true });

/**
 * Commander requires node:child_process at load, for subcommands that are executables (overnight
 * has none): that builtin and the stream and net modules under it cost a bare command several ms.
 * Commander's require of it is made lazy; overnight's own imports of it are untouched.
 */
function lazyChildProcess() {
  return {
    name: 'lazy-child-process',
    setup(b) {
      b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
        /[\\/]commander[\\/]/.test(args.importer)
          ? { path: 'lazy-child-process', namespace: 'lazy' }
          : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
        contents:
          "let cp; module.exports = new Proxy({}, { get: (_, k) => (cp ??= require('node:child_process'))[k] });",
        loader: 'js',
      }));
    },
  };
}
