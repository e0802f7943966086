import { statfsSync } from 'node:fs';

import type { DiskSpace } from '../core/status/disk.js';

/** What is left on the filesystem holding `path` for an unprivileged writer; null if unknown. */
export function diskSpace(path: string): DiskSpace | null {
  try {
    const s = statfsSync(path);
    // files 0: a filesystem that does not count inodes (some network and FUSE ones).
    return { bytes: s.bavail * s.bsize, inodes: s.files > 0 ? s.ffree : null };
  } catch {
    return null;
  }
}
