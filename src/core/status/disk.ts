// A full disk is invisible to the heartbeat (the pass cannot write one): status looks at the free
// space of the runs root's filesystem itself.

/** Free space for an unprivileged writer; `inodes` null when the filesystem does not count them. */
export interface DiskSpace {
  bytes: number;
  inodes: number | null;
}

/** Below this, a pass cannot record a session, an exit or an event. */
export const DISK_FULL_BYTES = 1024 * 1024;

/** The warning for a runs root on a full disk, with the fix; null when there is room. */
export function diskFullWarning(space: DiskSpace | null, root: string): string | null {
  if (!space) return null;
  const what =
    space.inodes === 0
      ? 'no free inodes'
      : space.bytes < DISK_FULL_BYTES
        ? `${Math.floor(space.bytes / 1024)} KB free`
        : null;
  if (!what) return null;
  return (
    `warning: no space left on the disk that holds ${root} (${what}): passes cannot record anything, ` +
    'so nothing is supervised. fix: free space on that disk; ' +
    'runs resume on the next pass, nothing written is lost.'
  );
}
