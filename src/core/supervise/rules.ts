// decide's rules, numbered once: the code (decide.ts, live.ts, ended.ts and the steps of 7), the
// walk in docs/development.md and DESIGN's list use these numbers, and every action says which rule
// chose it. Each rule has a row in test/unit/decide-rules.test.ts, which fails for one without.

export const RULES = {
  '1': 'a finished run: nothing, or its leftover agent stopped',
  '2': 'a paused run: left exactly as it is',
  '3': 'no session yet: the first one (past the end time: DONE, never started)',
  '4.1': 'paid extra usage the run does not allow: stopped, then waited out',
  '4.2': "a session's own deadline: the synthesis's budget, the fix session's verify_budget",
  '4.3': 'a prompt nobody will answer: the run fails (the synthesis or fix is stopped instead)',
  '4.4': 'the end time: the agent is interrupted for the synthesis',
  '4.5': 'the hang watch: silence past stale_after is marked, then stopped after hang_grace',
  '4.6': 'at work: nothing to do',
  '5': 'a wrapper between start and record: nothing, or the session started again',
  '6.1': 'the synthesis wrote the report: DONE',
  '6.1b': 'a Slurm time limit: said as such, never a crash',
  '6.2': 'a usage limit: waited out until it resets',
  '6.3': 'what no restart can fix (an account on hold, a sandbox that cannot start): FAILED',
  '6.4': 'a refused login: tried once more, then FAILED with the fix',
  '6.5': 'the synthesis ended without a report: tried again while its budget lasts',
  '6.6': 'the agent finished the job itself: DONE',
  '6.7': 'the spend cap: the synthesis on what is left, or FAILED',
  '6.8': 'the end time: one synthesis writes the report',
  '6.9': 'API trouble: waited out, not counted as a crash',
  '6.10': "a follow-up's refused fork: a fresh session, no restart counted",
  '6.11': 'the circuit breaker: FAILED after max_restarts crashes',
  '6.12': 'time is left: continued or resumed, after backoff when due',
  '7.1': 'a fresh session where resuming cannot work (the transcript gone or too large)',
  '7.2': "a repository run's worktree gone: FAILED",
  '7.3': 'the check (verify): the baseline, the final check, one fix, the recheck',
  '7.4': 'the reviewer (review), after the check, before the report',
} as const;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];
