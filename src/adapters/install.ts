import { fileURLToPath } from 'node:url';

import { resolveExecutable } from './which.js';

// What overnight executes of itself: the node and the CLI of the install running now, never paths
// read back from a file (a run's records name them only for people to read).

/** bin/overnight.js of this install: dist/ and bin/ are siblings in the package. */
export const CLI_PATH = fileURLToPath(new URL('../bin/overnight.js', import.meta.url));

export function selfCommand(): { node: string; cli: string } {
  return { node: process.execPath, cli: CLI_PATH };
}

/** The Claude Code CLI pinned in this install's own dependencies (present in a clone or a link). */
const PINNED_CLAUDE = fileURLToPath(new URL('../node_modules/.bin/claude', import.meta.url));

/**
 * The agent binary: the configured command as found on PATH, else, for the default `claude`, the
 * CLI pinned beside this install, so a fresh clone installed with `npm install -g .` just works.
 */
export function resolveClaude(command: string, path?: string): string | null {
  const found = resolveExecutable(command, path);
  if (found || command !== 'claude') return found;
  return resolveExecutable(PINNED_CLAUDE);
}
