import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { writeFileAtomic } from '../adapters/files.js';
import { OperationalError } from '../core/errors.js';
import { describeIoError } from '../core/io-error.js';

// Where `overnight digest --html` puts its page, and writing it.

/** Where `--open` without `--html` puts the page: beside the runs (made if need be), replaced each time. */
export function defaultPage(root: string): string {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return join(root, 'digest.html');
}

/** The page, written whole or not at all; a place it cannot go is said in words. */
export function writePage(file: string, html: string): void {
  try {
    writeFileAtomic(file, html);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'its directory does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : code === 'ENOSPC'
              ? describeIoError({ code })
              : 'it cannot be written';
    throw new OperationalError(`cannot write the digest to ${file}: ${why}; give --html another file`);
  }
}
