// Bundles the CLI into dist/: one file loads much faster than a tree of modules (startup is
// most of a reconcile pass). Heavy modules loaded with import() become separate chunks.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist',
  logLevel: 'warning',
  // CommonJS dependencies inside an ES module bundle still need require.
  banner: { js: "import { createRequire as __overnightRequire } from 'node:module'; const require = __overnightRequire(import.meta.url);" },
});
