// The launch probe: before the first session, the run's policy is tried for real, and a night
// whose sandbox lets any of these through is refused, naming which. Pure: the script and the
// judgement; the adapter runs it.

/**
 * The probe's commands, for `sh -c` with $1 a file outside every writable place, $2 a file in
 * overnight's records (the runs root is hidden), $3 node and $4 a loopback port nobody listed.
 */
export const PROBE_SCRIPT = [
  // `true`, not `:`: a failed redirection of a special built-in ends a POSIX shell.
  'true 2>/dev/null >"$1" && echo PROBE-WROTE',
  'cat "$2" 2>/dev/null',
  '"$3" -e \'const s=require("net").connect(Number(process.argv[1]),"127.0.0.1");' +
    's.on("connect",()=>{console.log("PROBE-CONNECTED");process.exit(0)});' +
    's.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),3000)\' "$4"',
  'echo PROBE-RAN',
].join('\n');

export interface ProbeSeen {
  /** The file outside exists on disk after the probe. */
  wrote: boolean;
  /** The probe's output holds the canary's secret. */
  read: boolean;
  /** The listener took a connection (or the probe said it connected). */
  connected: boolean;
  /** What went wrong when the sandbox itself could not run (bubblewrap's own error); null when it ran. */
  failed: string | null;
}

/** What the sandbox let through, each in words; empty when it held. */
export function probeProblems(seen: ProbeSeen, paths: { outside: string; records: string }): string[] {
  if (seen.failed) return [`the sandbox could not run the run's policy (${seen.failed})`];
  const out: string[] = [];
  if (seen.wrote) out.push(`a command wrote ${paths.outside}, outside the run's directories`);
  if (seen.read) out.push(`a command read overnight's records (${paths.records})`);
  if (seen.connected) out.push('a command reached a loopback port no policy lists');
  return out;
}
