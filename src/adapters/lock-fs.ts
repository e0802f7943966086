import { mkdirSync, realpathSync, rmdirSync, statSync, utimesSync } from 'node:fs';

// The file system proper-lockfile is given: its callback calls done at once, synchronously, with
// the callback still called on a later tick. A pass does no other asynchronous file I/O, and the
// first such call starts libuv's pool of four threads: about 2 ms of a steady pass on 2 cores,
// for a mkdir, a utimes, a stat and an rmdir of a directory in the runs root.

type Callback<T> = (err: NodeJS.ErrnoException | null, value?: T) => void;

function later<T>(callback: Callback<T>, work: () => T): void {
  let value: T | undefined;
  let error: NodeJS.ErrnoException | null = null;
  try {
    value = work();
  } catch (err) {
    error = err as NodeJS.ErrnoException;
  }
  process.nextTick(callback, error, value);
}

/** The calls proper-lockfile makes (lib/lockfile.js, lib/mtime-precision.js), each done in place. */
export const lockFs = {
  mkdir: (path: string, callback: Callback<void>) => later(callback, () => mkdirSync(path)),
  rmdir: (path: string, callback: Callback<void>) => later(callback, () => rmdirSync(path)),
  stat: (path: string, callback: Callback<ReturnType<typeof statSync>>) =>
    later(callback, () => statSync(path)),
  utimes: (path: string, atime: Date, mtime: Date, callback: Callback<void>) =>
    later(callback, () => utimesSync(path, atime, mtime)),
  realpath: (path: string, callback: Callback<string>) => later(callback, () => realpathSync(path)),
  rmdirSync,
};
