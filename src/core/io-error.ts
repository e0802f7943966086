// An operating system error said in words, with its code for a search: "no space left on the disk
// (ENOSPC)". Pure: the error is a value.

const WORDS: Record<string, string> = {
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  ENOMEM: 'out of memory',
};

/** Node's `ENOSPC: no space left on device, open '…'` becomes `no space left on the disk (ENOSPC)`. */
export function describeIoError(err: { code?: unknown; message?: unknown }): string {
  const code = typeof err.code === 'string' ? err.code : null;
  const message = typeof err.message === 'string' ? err.message : String(err);
  const known = code ? WORDS[code] : undefined;
  if (code && known) return `${known} (${code})`;
  // Wrapped messages ("<path>: ENOSPC: …") still carry the code.
  const m = /\b(E[A-Z]+): ([^,]+)/.exec(message);
  if (m) return `${WORDS[m[1] as string] ?? (m[2] as string).trim()} (${m[1]})`;
  return message;
}
