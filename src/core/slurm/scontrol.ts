import { JOBS_MAX, stateOf, type Listing, type SlurmJob } from './jobs.js';

// `scontrol show job -o`: one job a line, `Key=Value` separated by spaces. The fallback where squeue
// has no --json (a Slurm built without its JSON plugin). Values may hold spaces (a command, a
// comment, a job name chosen by anyone), so a line in which a key this reads appears twice is
// ambiguous and skipped: a name such as `x JobState=RUNNING` cannot pass for a field. Pure.

const KEYS = ['JobId', 'JobName', 'UserId', 'JobState', 'Reason', 'Restarts', 'ExitCode', 'NodeList'];
const LINE_MAX = 64 * 1024;

/** The value after ` Key=` (or at the line's start), up to the next space. */
function field(line: string, key: string): string | null {
  const at = line.startsWith(`${key}=`) ? 0 : line.indexOf(` ${key}=`);
  if (at < 0) return null;
  const start = at === 0 ? key.length + 1 : at + key.length + 2;
  const end = line.indexOf(' ', start);
  return line.slice(start, end < 0 ? undefined : end);
}

function occurrences(line: string, key: string): number {
  let n = line.startsWith(`${key}=`) ? 1 : 0;
  for (let i = line.indexOf(` ${key}=`); i >= 0; i = line.indexOf(` ${key}=`, i + 1)) n++;
  return n;
}

const int = (s: string | null, max: number): number | null =>
  s !== null && /^\d{1,10}$/.test(s) && Number(s) <= max ? Number(s) : null;

export function jobOfLine(line: string): SlurmJob | null {
  if (line.length > LINE_MAX || KEYS.some((k) => occurrences(line, k) > 1)) return null;
  const jobId = int(field(line, 'JobId'), 0xffff_ffff);
  const name = field(line, 'JobName');
  if (jobId === null || jobId === 0 || !name || !/^[\x21-\x7e]{1,1024}$/.test(name)) return null;
  // The name ends where UserId begins: `JobName=a b UserId=…` is a name with a space, not `a`.
  if (!line.includes(` JobName=${name} UserId=`)) return null;
  // `ExitCode=3:0` is code 3; `0:9` is signal 9.
  const exit = /^(\d{1,3}):(\d{1,3})$/.exec(field(line, 'ExitCode') ?? '');
  const signal = exit ? Number(exit[2]) : 0;
  const node = field(line, 'NodeList');
  const reason = field(line, 'Reason');
  const user = /\((\d{1,10})\)$/.exec(field(line, 'UserId') ?? '');
  return {
    jobId,
    name,
    userId: user ? int(user[1] as string, 0xffff_ffff) : null,
    state: stateOf(field(line, 'JobState')),
    node: node && node !== '(null)' ? node.slice(0, 1024) : null,
    exit: !exit
      ? { code: null, signal: null }
      : signal > 0 && signal < 128
        ? { code: null, signal }
        : { code: Math.min(Number(exit[1]), 255), signal: null },
    restartCount: int(field(line, 'Restarts'), 1_000_000) ?? 0,
    reason: reason && reason !== 'None' ? reason.slice(0, 256) : null,
  };
}

/** The whole output: one job a line; `No jobs in the system` is an empty listing. */
export function parseScontrolJobs(text: string): Listing {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 1 && /^No jobs in the system/.test(lines[0] as string)) {
    return { jobs: [], skipped: 0, truncated: false };
  }
  const read = lines.slice(0, JOBS_MAX);
  const jobs = read.map(jobOfLine).filter((j): j is SlurmJob => j !== null);
  return { jobs, skipped: read.length - jobs.length, truncated: lines.length > JOBS_MAX };
}
