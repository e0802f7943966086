import { test as base } from 'vitest';

import { makeSandbox, type Sandbox, type SandboxBackend } from './harness.js';

/**
 * `test` (and `it`) with a sandbox of its own for every test that asks for one:
 * `it('…', async ({ sb }) => { … })`. The sandbox is cleaned up after the test, passed or failed
 * (its processes and tmux server stopped, its directory removed).
 */
export const test = base.extend<{ sb: Sandbox }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  sb: async ({}, use) => {
    const sb = makeSandbox();
    await use(sb);
    await sb.cleanup();
  },
});

/** @alias test */
export const it = test;

/** `it` with a sandbox whose runs use `backend`: for the tests that run on every backend. */
export function itOn(backend: SandboxBackend) {
  return base.extend<{ sb: Sandbox }>({
    // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
    sb: async ({}, use) => {
      const sb = makeSandbox({ backend });
      await use(sb);
      await sb.cleanup();
    },
  });
}

/** The backends a process-model test runs on. */
export const BACKENDS: readonly SandboxBackend[] = ['tmux', 'detached'];
