// Errors as data: a short message that names the bad value and the fix, and an exit code.

/** Bad flag or value: exit 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** Something outside the user's input went wrong: exit 1. */
export class OperationalError extends Error {
  readonly exitCode = 1;
}
