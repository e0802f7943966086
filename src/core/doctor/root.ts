import { dirname } from 'node:path';

import { describeIoError } from '../io-error.js';
import { fsErrorWords } from '../run/runs-root.js';
import type { CheckResult } from './checks.js';
import { filesystemKind, type Mount } from './mounts.js';

// Doctor checks of the runs root: its directory, the filesystem under it, free space.

export { filesystemKind, mountFor, parseMountOutput, parseProcMounts } from './mounts.js';
export type { Mount } from './mounts.js';

export interface RunsRootFacts {
  path: string;
  exists: boolean;
  isDirectory: boolean;
  /** Permission bits (mode & 0o777). */
  mode: number | null;
  ownerUid: number | null;
  /** This user's uid; null where there is none (Windows). */
  uid: number | null;
  /** What the filesystem facts are about: the root itself, or its nearest existing ancestor. */
  checkedPath: string;
  mount: Mount | null;
  freeBytes: number | null;
  /**
   * A file created and removed in the root (or, while it does not exist, in its parent, where
   * launch would create it): null when that worked or could not be tried, else the error code.
   */
  writeError: string | null;
  /** While the root does not exist: a file above it that is in the way (`/home/me/runs` a file). */
  fileInTheWay: string | null;
}

const MB = 1024 * 1024;
export const LOW_SPACE = 1024 * MB;
export const TOO_LITTLE_SPACE = 100 * MB;

function formatBytes(n: number): string {
  return n >= 1024 * MB ? `${(n / (1024 * MB)).toFixed(1)} GB` : `${Math.floor(n / MB)} MB`;
}

const ELSEWHERE = 'set OVERNIGHT_HOME (or runs_dir: in config.yaml) to a directory';

/** What keeps anything from being written in the root: a read-only mount, or a refused write. */
function unwritable(f: RunsRootFacts): CheckResult | null {
  const name = 'runs root';
  const where = f.exists ? f.path : `${f.checkedPath} (where ${f.path} would be created)`;
  const mountPoint = f.mount ? ` (${f.mount.mountPoint})` : '';
  if (f.mount?.readOnly || f.writeError === 'EROFS')
    return {
      name,
      status: 'problem',
      detail: `${where} is on a read-only filesystem${mountPoint}: no run can be written`,
      fix: `remount it read-write, or ${ELSEWHERE} on a writable disk`,
    };
  if (f.writeError === 'ENOSPC' || f.writeError === 'EDQUOT')
    return {
      name,
      status: 'problem',
      detail: `nothing can be written in ${where}: ${describeIoError({ code: f.writeError })}`,
      fix: `free some space, or ${ELSEWHERE} on another disk`,
    };
  if (f.writeError)
    return {
      name,
      status: 'problem',
      detail: `${where} cannot be written by you (${fsErrorWords(f.writeError)})`,
      fix: `give yourself write access (chmod u+rwx ${f.exists ? f.path : f.checkedPath}), or ${ELSEWHERE}`,
    };
  return null;
}

function checkDirectory(f: RunsRootFacts): CheckResult {
  const name = 'runs root';
  const fixMode = `chmod 700 ${f.path}`;
  if (!f.exists && f.fileInTheWay)
    return {
      name,
      status: 'problem',
      detail: `${f.path} cannot be created: ${f.fileInTheWay} is a file, not a directory`,
      fix: `move it away, or ${ELSEWHERE}`,
    };
  if (!f.exists && f.checkedPath !== dirname(f.path))
    return {
      name,
      status: 'problem',
      detail:
        `${f.path} does not exist, nor does its parent ${dirname(f.path)}` +
        (f.checkedPath !== '/' ? ` (${f.checkedPath} is the nearest that does)` : ''),
      fix: `create ${dirname(f.path)} first (a disk not mounted?), or ${ELSEWHERE}`,
    };
  if (!f.exists)
    return (
      unwritable(f) ?? {
        name,
        status: 'warning',
        detail: `${f.path} does not exist yet`,
        fix: `\`overnight launch\` creates it, or: mkdir -m 700 ${f.path}`,
      }
    );
  if (!f.isDirectory)
    return {
      name,
      status: 'problem',
      detail: `${f.path} is not a directory`,
      fix: `move it away, or ${ELSEWHERE}`,
    };
  if (f.uid !== null && f.ownerUid !== null && f.ownerUid !== f.uid) {
    return {
      name,
      status: 'problem',
      detail: `${f.path} belongs to uid ${f.ownerUid}, not to you (uid ${f.uid})`,
      fix: `chown ${f.uid} ${f.path}, or use a runs root of your own (OVERNIGHT_HOME)`,
    };
  }
  // Before the modes: chmod cannot help on a read-only disk.
  const blocked = unwritable(f);
  if (blocked) return blocked;
  const mode = f.mode ?? 0o700;
  const octal = `0${mode.toString(8).padStart(3, '0')}`;
  if ((mode & 0o700) !== 0o700)
    return {
      name,
      status: 'problem',
      detail: `${f.path} is ${octal}: you cannot read, write and enter it`,
      fix: fixMode,
    };
  if ((mode & 0o022) !== 0)
    return {
      name,
      status: 'problem',
      detail: `${f.path} is ${octal}: others can write in it (runs hold credentials)`,
      fix: fixMode,
    };
  if ((mode & 0o077) !== 0)
    return {
      name,
      status: 'warning',
      detail: `${f.path} is ${octal}, not 0700: others can list your runs`,
      fix: fixMode,
    };
  return { name, status: 'ok', detail: `${f.path} (0700)` };
}

function checkFilesystem(f: RunsRootFacts): CheckResult {
  const name = 'filesystem';
  const where = f.checkedPath === f.path ? f.path : `${f.checkedPath} (where ${f.path} will be)`;
  const move = 'set OVERNIGHT_HOME (or runs_dir: in config.yaml) to a directory on a local disk';
  if (!f.mount)
    return {
      name,
      status: 'warning',
      detail: `the filesystem type of ${where} is unknown`,
      fix: `make sure it is a local disk, or ${move}`,
    };
  const kind = filesystemKind(f.mount.type);
  const on = `${where} is on ${f.mount.type} (${f.mount.mountPoint})`;
  if (kind === 'network')
    return {
      name,
      status: 'problem',
      detail:
        `${on}, a network filesystem: ` +
        'locks and atomic renames are unreliable and it may vanish at night',
      fix: move,
    };
  if (kind === 'memory')
    return { name, status: 'warning', detail: `${on}, in memory: every run is lost at a reboot`, fix: move };
  if (kind === 'fuse')
    return {
      name,
      status: 'warning',
      detail: `${on}, which may not lock and rename like a local disk`,
      fix: move,
    };
  return { name, status: 'ok', detail: `${on}, a local filesystem` };
}

function checkSpace(f: RunsRootFacts): CheckResult {
  const name = 'free space';
  if (f.freeBytes === null)
    return {
      name,
      status: 'warning',
      detail: `could not read the free space of ${f.checkedPath}`,
      fix: `check it yourself: df -h ${f.checkedPath}`,
    };
  const detail = `${formatBytes(f.freeBytes)} free on ${f.mount?.mountPoint ?? f.checkedPath}`;
  const fix =
    'free some space (transcripts and output logs grow all night), or move the runs root (OVERNIGHT_HOME)';
  if (f.freeBytes < TOO_LITTLE_SPACE) return { name, status: 'problem', detail: `only ${detail}`, fix };
  if (f.freeBytes < LOW_SPACE) return { name, status: 'warning', detail: `only ${detail} (under 1 GB)`, fix };
  return { name, status: 'ok', detail };
}

/** The runs root's directory, the filesystem under it, and its free space: three results. */
export function checkRunsRoot(f: RunsRootFacts): CheckResult[] {
  return [checkDirectory(f), checkFilesystem(f), checkSpace(f)];
}
