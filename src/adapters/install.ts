import { fileURLToPath } from 'node:url';

// What overnight executes of itself: the node and the CLI of the install running now, never paths
// read back from a file (a run's records name them only for people to read).

/** bin/overnight.js of this install: dist/ and bin/ are siblings in the package. */
export const CLI_PATH = fileURLToPath(new URL('../bin/overnight.js', import.meta.url));

export function selfCommand(): { node: string; cli: string } {
  return { node: process.execPath, cli: CLI_PATH };
}
