import lockfile from 'proper-lockfile';

// One reconcile pass at a time per runs root. A lock left by a killed pass goes stale and is reclaimed.

const STALE_MS = 10_000;

export type Release = () => Promise<void>;

/** The lock, or null at once when another live pass holds it. */
export async function tryLock(lockPath: string, onLost: (err: Error) => void): Promise<Release | null> {
  try {
    return await lockfile.lock(lockPath, {
      lockfilePath: lockPath,
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      onCompromised: onLost,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return null;
    throw err;
  }
}

/** Waits for the lock (launch and stop must not race a pass); throws after `waitMs`. */
export async function waitLock(
  lockPath: string,
  waitMs: number,
  onLost: (err: Error) => void,
): Promise<Release> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const release = await tryLock(lockPath, onLost);
    if (release) return release;
    if (Date.now() >= deadline)
      throw new Error(
        `another overnight command held the lock ${lockPath} ` +
          `for over ${Math.round(waitMs / 1000)}s; try again`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
