// Who may have written a file or directory overnight reads: only the person. A runs root, a run's
// directory or records, or an outbox file that another user owns or can write is refused, since
// another user could plant what a pass then runs or believes. Pure: the facts are values.

export interface OwnerFacts {
  path: string;
  /** The owner's uid. */
  uid: number;
  /** Permission bits (mode & 0o777). */
  mode: number;
}

export type OwnerProblem =
  | { kind: 'not-owned'; path: string; owner: number; me: number }
  /** A symbolic link another user made: whoever owns it decides where it leads. */
  | { kind: 'foreign-link'; path: string; owner: number; me: number }
  | { kind: 'open'; path: string; mode: number };

/** What is wrong with who can write `f`; null when only `me` can. `me` null (no uids): nothing. */
export function ownerProblem(f: OwnerFacts, me: number | null): OwnerProblem | null {
  if (me === null) return null;
  if (f.uid !== me) return { kind: 'not-owned', path: f.path, owner: f.uid, me };
  if ((f.mode & 0o022) !== 0) return { kind: 'open', path: f.path, mode: f.mode & 0o777 };
  return null;
}

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;

/** A symbolic link is the person's (or the system's): another user's could be pointed anywhere. */
export function linkProblem(f: OwnerFacts, me: number | null): OwnerProblem | null {
  if (me === null || f.uid === me || f.uid === 0) return null;
  return { kind: 'foreign-link', path: f.path, owner: f.uid, me };
}

/** One line: `what` (e.g. "the runs root /x"), the problem, and the fix. */
export function describeOwnerProblem(what: string, p: OwnerProblem): string {
  if (p.kind === 'foreign-link')
    return (
      `${what} is a symbolic link made by uid ${p.owner}, not by you (uid ${p.me}): another user ` +
      `decides where it leads; remove it (rm ${p.path}) and make the directory yourself, ` +
      'or use one of your own'
    );
  if (p.kind === 'not-owned')
    return (
      `${what} belongs to uid ${p.owner}, not to you (uid ${p.me}): another user could plant files ` +
      `in it; chown ${p.me} ${p.path} (and chmod 700 ${p.path}), or use one of your own`
    );
  return (
    `${what} is ${octal(p.mode)}: other users can write in it and plant files there; ` + `chmod 700 ${p.path}`
  );
}
