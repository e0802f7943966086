// The mount table, read for the runs root's filesystem: where it is mounted, how, and what kind.

export interface Mount {
  mountPoint: string;
  type: string;
  /** Mounted read-only (`ro`, `read-only`): nothing can be written there, whatever the modes say. */
  readOnly: boolean;
}

/** `/proc/mounts` (Linux): `device mountpoint type options 0 0`, spaces in paths as `\040`. */
export function parseProcMounts(text: string): Mount[] {
  const unescape = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_m, oct: string) => String.fromCharCode(parseInt(oct, 8)));
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f.length >= 3)
    .map((f) => ({
      mountPoint: unescape(f[1] as string),
      type: f[2] as string,
      readOnly: (f[3] ?? '').split(',').includes('ro'),
    }));
}

/** `mount` on macOS and the BSDs: `device on /mount/point (type, option, …)`. */
export function parseMountOutput(text: string): Mount[] {
  return text
    .split('\n')
    .map((line) => / on (.+) \(([^,)]+)([^)]*)\)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      mountPoint: m[1] as string,
      type: (m[2] as string).trim(),
      readOnly: (m[3] as string).split(',').some((o) => o.trim() === 'read-only' || o.trim() === 'rdonly'),
    }));
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
