// Bundles the CLI into dist/: one file loads much faster than a tree of modules (startup is
// most of a reconcile pass). Heavy modules loaded with import() become separate chunks.
// Built beside dist/ and swapped in, so wrappers running all night never find it half written.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const next = `dist.next-${process.pid}`;
const old = `dist.old-${process.pid}`;
await build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: next,
  logLevel: 'warning',
  // CommonJS dependencies inside an ES module bundle still need require.
  banner: {
    js: "import { createRequire as __overnightRequire } from 'node:module'; const require = __overnightRequire(import.meta.url);",
  },
});
if (existsSync('dist')) renameSync('dist', old);
renameSync(next, 'dist');
rmSync(old, { recursive: true, force: true });
