import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Absolute path of an executable, looked up on PATH unless it already has a slash; null when absent. */
export function resolveExecutable(command: string, path = process.env.PATH ?? ''): string | null {
  const candidates = command.includes('/')
    ? [resolve(command)]
    : path
        .split(delimiter)
        .filter(isAbsolute)
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      // Kept as found, not resolved through links: a package manager may move the target.
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
