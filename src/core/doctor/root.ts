import type { CheckResult } from './checks.js';

// Doctor checks of the runs root: its directory, the filesystem under it, free space.

export interface Mount {
  mountPoint: string;
  type: string;
}

/** `/proc/mounts` (Linux): `device mountpoint type options 0 0`, spaces in paths as `\040`. */
export function parseProcMounts(text: string): Mount[] {
  const unescape = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8)));
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f.length >= 3)
    .map((f) => ({ mountPoint: unescape(f[1] as string), type: f[2] as string }));
}

/** `mount` on macOS and the BSDs: `device on /mount/point (type, option, …)`. */
export function parseMountOutput(text: string): Mount[] {
  return text
    .split('\n')
    .map((line) => / on (.+) \(([^,)]+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ mountPoint: m[1] as string, type: (m[2] as string).trim() }));
}

/**
 * The mount holding `path` (absolute, links resolved): the longest mount point prefix; the last one
 * wins a tie.
 */
export function mountFor(path: string, mounts: readonly Mount[]): Mount | null {
  let best: Mount | null = null;
  for (const m of mounts) {
    const inside =
      path === m.mountPoint ||
      path.startsWith(m.mountPoint.endsWith('/') ? m.mountPoint : `${m.mountPoint}/`);
    if (inside && (!best || m.mountPoint.length >= best.mountPoint.length)) best = m;
  }
  return best;
}

const NETWORK = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb',
  'smb2',
  'smb3',
  'smbfs',
  'afpfs',
  'ncpfs',
  'webdav',
  'davfs',
  'afs',
  'coda',
  'ceph',
  'glusterfs',
  'lustre',
  'gpfs',
  'beegfs',
  'sshfs',
  'fuse.sshfs',
  'fuse.s3fs',
  'fuse.rclone',
  'fuse.gcsfuse',
  'fuse.glusterfs',
  'fuse.ceph',
  'fuse.davfs2',
  'fuse.cephfs',
]);
const MEMORY = new Set(['tmpfs', 'ramfs']);

export type FsKind = 'local' | 'network' | 'memory' | 'fuse';

export function filesystemKind(type: string): FsKind {
  if (NETWORK.has(type)) return 'network';
  if (MEMORY.has(type)) return 'memory';
  if (type.startsWith('fuse') || type === '9p') return 'fuse';
  return 'local';
}

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
}

const MB = 1024 * 1024;
export const LOW_SPACE = 1024 * MB;
export const TOO_LITTLE_SPACE = 100 * MB;

function formatBytes(n: number): string {
  return n >= 1024 * MB ? `${(n / (1024 * MB)).toFixed(1)} GB` : `${Math.floor(n / MB)} MB`;
}

function checkDirectory(f: RunsRootFacts): CheckResult {
  const name = 'runs root';
  const fixMode = `chmod 700 ${f.path}`;
  if (!f.exists)
    return {
      name,
      status: 'warning',
      detail: `${f.path} does not exist yet`,
      fix: `\`overnight launch\` creates it, or: mkdir -m 700 ${f.path}`,
    };
  if (!f.isDirectory)
    return {
      name,
      status: 'problem',
      detail: `${f.path} is not a directory`,
      fix: 'move it away, or set OVERNIGHT_HOME (or runs_dir: in config.yaml) to a directory',
    };
  if (f.uid !== null && f.ownerUid !== null && f.ownerUid !== f.uid) {
    return {
      name,
      status: 'problem',
      detail: `${f.path} belongs to uid ${f.ownerUid}, not to you (uid ${f.uid})`,
      fix: `chown ${f.uid} ${f.path}, or use a runs root of your own (OVERNIGHT_HOME)`,
    };
  }
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
