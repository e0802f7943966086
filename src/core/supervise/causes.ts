// Every decision's cause as a closed code, beside the prose a person reads (as a Kubernetes event
// carries a Reason beside its Message). Tools decide from the code, never from the prose. Pure.

/** Each cause and what it means, one line; the list is closed: readers reject anything else. */
export const CAUSES = {
  // the run goes on
  working: 'the agent is at work (or writing the report): nothing to do',
  starting: 'the wrapper is between starting the agent and recording it, or its end and the record',
  'first-session': 'launch recorded the run but never started its first session',
  'start-again': 'the recorded session never started its agent (tmux refused it): started as recorded',
  'time-left': 'the agent stopped cleanly with time left: the conversation continues',
  crash: 'the agent ended badly (a crash, a signal, an error): resumed, with backoff',
  backoff: 'a session ended too soon or badly: waiting out the backoff before the next',
  silent: 'the live agent has been silent past stale_after: watched for a hang',
  hang: 'the agent stayed silent through hang_grace: stopped and resumed as a crash',
  'login-retry': 'the login was refused once: tried once more (a token may have been refreshed)',
  'fork-refused':
    "the CLI could not resume the earlier night's conversation (`continue`): a fresh session, no restart",
  'api-trouble': 'the API kept failing (429, 529, 5xx) after the CLI retries: waited out, no restart',
  'usage-limit': 'a usage limit: waited out until it resets, then the run goes on',
  'limit-lifted': 'the usage limit waited out has lifted: the run goes on',
  overage: 'paid extra usage began and allow_overage is off: stopped and waited out',
  'report-late': 'a usage limit lifts only after the synthesis budget: the report is written late',
  'end-time': 'the end time came: exploring stops and the synthesis writes the report',
  'synthesis-retry': 'the synthesis ended without REPORT.md: tried again while its budget lasts',
  'finished-early': 'the person moved the end time to now (`overnight finish`)',
  paused: 'the person paused the run',
  unpaused: 'the person resumed the paused run',
  'leftover-agent': 'the run is finished but an agent still ran: stopped',
  verifying: "the run's check (launch --verify) is due or running: on the base commit, or at the end",
  reviewing: 'the reviewer (launch --review) is due or reading the night’s work, before the report',
  'check-lost': "the check's process was lost (killed, the machine went down): started again once",
  'check-timeout': 'the check ran past verify_timeout: killed with its process group',
  'verify-fix': 'the final check failed with verify_budget left: one fix session, then the check again',
  'fix-time': 'verify_budget ran out: the fix session is stopped and the check runs again',
  // DONE
  'report-written': 'REPORT.md was written (by the agent or the synthesis)',
  'report-incomplete': 'the synthesis was still writing when its budget ran out',
  'no-report': 'the synthesis ended without writing REPORT.md and no try is left',
  'never-started': 'the end time passed before the agent ever started',
  'limit-outlasts': 'a usage limit lifts only after late_report: the night ends without a report',
  stopped: 'the person stopped the run (`overnight stop`)',
  'job-time-limit': "Slurm ended the session's job at its time limit (the end time plus synthesis_budget)",
  // FAILED
  breaker: 'the circuit breaker: max_restarts crashes, or none allowed',
  'spend-cap': 'max_cost is spent (the synthesis starts on what is left, or fails with none)',
  prompt: 'the agent waits for input nobody will give (a trust, login or yes/no question)',
  'refused-login': 'the login was refused again: only a new credential helps',
  'hard-limit': 'a usage limit no wait lifts (an admin, org or spend limit, no credit)',
  'account-on-hold': 'the account is on hold',
  'verification-required': 'the account must be verified first',
  'oauth-not-allowed': 'the organization does not allow this sign-in for Claude Code',
  'model-not-found': 'the model is not available to this account or deployment',
  'cloud-credentials': 'the cloud provider (Bedrock, Vertex) credentials could not be loaded',
  'sandbox-unavailable': "Claude Code could not start the run's sandbox: no session runs unconfined",
  'worktree-gone': 'the repository run’s worktree was removed outside overnight',
  // none of the above: a run recorded before causes whose prose says nothing known
  unknown: 'recorded before cause codes, in words no known pattern reads',
} as const;

export type Cause = keyof typeof CAUSES;

const NAMES = new Set<string>(Object.keys(CAUSES));

/** A cause read back from a record: only a name from the closed list counts. */
export function parseCause(v: unknown): Cause | null {
  return typeof v === 'string' && NAMES.has(v) ? (v as Cause) : null;
}

/** Causes only the person can clear: a restart proves nothing until they act. */
export const PERSON_ONLY: readonly Cause[] = [
  'prompt',
  'refused-login',
  'hard-limit',
  'account-on-hold',
  'verification-required',
  'oauth-not-allowed',
  'model-not-found',
  'cloud-credentials',
  'sandbox-unavailable',
];

/** A run that ends on these has no report (the person reads findings/ themselves). */
export const NO_REPORT: readonly Cause[] = [
  'no-report',
  'report-incomplete',
  'never-started',
  'limit-outlasts',
  'job-time-limit',
];
