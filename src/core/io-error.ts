// An operating system error said in words, with its code for a search: "no space left on the disk
// (ENOSPC)". Pure: the error is a value.

/** The one wording of each error code, for every message that names one. */
const WORDS: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'already exists',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only filesystem',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on the system',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links (a loop?)',
  EIO: 'input/output error (a failing disk?)',
  EBUSY: 'in use',
  ENOTEMPTY: 'not empty',
  EXDEV: 'on another filesystem',
  ENOMEM: 'out of memory',
};

/** An error code in words (`EROFS` → "read-only filesystem"); undefined for codes it does not know. */
export function errnoWords(code: string): string | undefined {
  return Object.hasOwn(WORDS, code) ? WORDS[code] : undefined;
}

/** Node's `ENOSPC: no space left on device, open '…'` becomes `no space left on the disk (ENOSPC)`. */
/** The system error's code (`ENOSPC`, …), from its `code` or the message a wrapper made of it; else null. */
export function errnoOf(err: { code?: unknown; message?: unknown }): string | null {
  if (typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code)) return err.code;
  const message = typeof err.message === 'string' ? err.message : '';
  return /\b(E[A-Z]{2,15}): /.exec(message)?.[1] ?? null;
}

export function describeIoError(err: { code?: unknown; message?: unknown }): string {
  const code = typeof err.code === 'string' ? err.code : null;
  const message = typeof err.message === 'string' ? err.message : String(err);
  const known = code ? errnoWords(code) : undefined;
  if (code && known) return `${known} (${code})`;
  // Wrapped messages ("<path>: ENOSPC: …") still carry the code.
  const m = /\b(E[A-Z]+): ([^,]+)/.exec(message);
  if (m) return `${errnoWords(m[1] as string) ?? (m[2] as string).trim()} (${m[1]})`;
  return message;
}
