// Errors as data: a short message that names the bad value and the fix, and an exit code.
// Every error class of the project lives here and is recognised with instanceof.

/** Bad flag or value: exit 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
}

/** Something outside the user's input went wrong: exit 1. */
export class OperationalError extends Error {
  readonly exitCode = 1;
}

/** A file of one run that cannot be used, named so the person can fix it; that run is skipped. */
export class RunFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}
