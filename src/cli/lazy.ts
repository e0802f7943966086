// Commander actions that load their command module only when they run: startup is most of a
// pass, and a command compiles only what it needs.

export const RUN =
  'the run: its id, a unique prefix of it, the --name it was given, or words of its id (survey-crdt)';

/** An action from a loader (a literal `import()`, so the bundle splits there) and a call. */
export type Lazy = <M, A extends unknown[]>(
  load: () => Promise<M>,
  run: (m: M, ...args: A) => Promise<number>,
) => (...args: A) => Promise<void>;

/** Actions whose command's exit code goes to `setExitCode`. */
export function lazyActions(setExitCode: (code: number) => void): Lazy {
  return (load, run) =>
    async (...args) =>
      setExitCode(await run(await load(), ...args));
}
