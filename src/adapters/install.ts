import { fileURLToPath } from 'node:url';

import { resolveExecutable } from './which.js';

// What overnight executes of itself: the node and the CLI of the install running now, never paths
// read back from a file (a run's records name them only for people to read).

// Paths beside this install, made when first asked for: a steady pass needs none of them.
const besideInstall = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
let cli: string | undefined;

/** bin/overnight.js of this install: dist/ and bin/ are siblings in the package. */
export function cliPath(): string {
  return (cli ??= besideInstall('../bin/overnight.js'));
}

export function selfCommand(): { node: string; cli: string } {
  return { node: process.execPath, cli: cliPath() };
}

/**
 * The agent binary: the configured command as found on PATH, else, for the default `claude`, the
 * CLI pinned beside this install, so a fresh clone installed with `npm install -g .` just works.
 */
export function resolveClaude(command: string, path?: string): string | null {
  const found = resolveExecutable(command, path);
  if (found || command !== 'claude') return found;
  // The Claude Code CLI pinned in this install's own dependencies (present in a clone or a link).
  return resolveExecutable(besideInstall('../node_modules/.bin/claude'));
}
