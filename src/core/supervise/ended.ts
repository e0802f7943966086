import { formatDuration } from '../config/duration.js';
import type { RunSpec, SessionRecord } from '../run/types.js';
import { money, oneLine, plural } from '../text.js';
import { backoffWait, waitOutApiTrouble } from './api-trouble.js';
import { restartDelay } from './backoff.js';
import { blockedReason, blockerOf } from './blocked.js';
import { EXPLORE_SHARE, MIN_SYNTHESIS_USD } from './budget.js';
import { endLabel, NORMAL_ENDS } from './classify.js';
import { done, endedOf, failed, start, type Rule } from './ended-facts.js';
import { retrySynthesis, waitOutLimit } from './ended-waits.js';
import { crashRestarts } from './exits.js';
import { synthesisStart } from './late-start.js';
import type { RuleId } from './rules.js';
import type { Action, AgentNotRunning, Observation } from './types.js';

export { synthesisDeadline } from './ended-waits.js';

// What follows a session whose agent has ended: rule 6 of decide, an ordered list of named rules
// (6.1 to 6.12; "Reading the code" in docs/development.md lists them). The first with an answer decides.

/** Consecutive refused logins before a run fails. */
export const AUTH_TRIES = 2;
export const AUTH_FIX =
  'for unattended runs put a long-lived token from `claude setup-token` in CLAUDE_CODE_OAUTH_TOKEN, ' +
  'or an ANTHROPIC_API_KEY, in the environment you launch from';

/** 6.1 The synthesis wrote the report. */
const synthesisWrote: Rule = (e) =>
  e.session.mode === 'synthesis' && e.obs.reportExists
    ? done('report-written', 'finished: REPORT.md written by the synthesis')
    : null;

/**
 * 6.1b Slurm ended the session's job at its time limit (set from the end time plus the synthesis
 * budget): said as such, never taken for a crash. With time left (the end time was moved later
 * than the job's limit) the conversation continues.
 */
const jobTimeLimit: Rule = (e) => {
  if (e.agent.endedBy !== 'time-limit') return null;
  if (e.obs.reportExists)
    return done('report-written', 'finished: REPORT.md written (then Slurm ended the job)');
  if (!e.ended && e.session.mode !== 'synthesis')
    return start(e, 'continue', 'job-time-limit', 'Slurm ended the job at its time limit, with time left');
  return done('job-time-limit', "no report: Slurm ended the session's job at its time limit");
};

/** 6.2 A usage limit is waited out and never counted as a crash; one that no wait lifts ends the run. */
const usageLimit: Rule = (e) =>
  e.endClass === 'usage-limit' && e.agent.limit ? waitOutLimit(e, e.agent.limit) : null;

/** 6.3 What no restart can fix (an account on hold, a model it lacks, …) ends the run with the fix. */
const blocked: Rule = (e) => {
  const blocker = e.endClass === 'blocked' ? blockerOf(e.agent.errorType) : null;
  return blocker ? failed(blocker.cause, blockedReason(blocker, e.errorText)) : null;
};

/** 6.4 Refused credentials have their own count: retried once (a token may be refreshed), then the fix. */
const refusedLogin: Rule = (e) => {
  if (e.endClass !== 'auth') return null;
  const said = e.errorText ?? e.how;
  const n = e.agent.authFailures;
  if (n >= AUTH_TRIES)
    return failed('refused-login', `authentication failed ${n} times in a row (${said}); ${AUTH_FIX}`);
  if (e.session.mode !== 'synthesis' && !e.ended)
    return start(e, 'retry', 'login-retry', `authentication failed (${said}); trying once more`);
  return null;
};

/** 6.5 The synthesis has ended without a report: tried again while its budget lasts. */
const synthesisAgain: Rule = (e) => (e.session.mode === 'synthesis' ? retrySynthesis(e) : null);

/** 6.6 The agent finished the job itself. */
const finished: Rule = (e) =>
  (e.exit === 0 && e.obs.reportExists) || e.endClass === 'finished'
    ? done('report-written', 'finished: REPORT.md written')
    : null;

/** 6.7 The spend cap: exploring stops at its share; the report gets what is left, if anything. */
const spendCap: Rule = (e) => {
  const { maxCost } = e.spec;
  const spentUsd = e.agent.costUsd;
  if (maxCost === null || spentUsd < maxCost * EXPLORE_SHARE) return null;
  const spent = `spend cap: ${money(spentUsd)} of ${money(maxCost)} spent`;
  if (maxCost - spentUsd >= MIN_SYNTHESIS_USD) return synthesisStart(e, 'spend-cap', spent);
  return failed('spend-cap', `${spent}, nothing left for the report`);
};

/** 6.8 Time is up: one synthesis session writes the report. */
const endTime: Rule = (e) => (e.ended ? synthesisStart(e, 'end-time', `end time reached (${e.how})`) : null);

/** 6.9 Transient API trouble is waited out, not counted as a crash. */
const apiTrouble: Rule = (e) =>
  e.endClass === 'api-trouble' ? waitOutApiTrouble({ ...e, said: e.errorText }) : null;

/**
 * 6.10 A follow-up's first session that could not resume the earlier night's conversation (the
 * CLI refused the fork, so no transcript of its own exists): a fresh session is handed the work
 * (7.1), and the refusal is no crash of the agent, so no restart is counted.
 */
const forkRefused: Rule = (e) =>
  e.session.forked && !NORMAL_ENDS.includes(e.endClass) && e.agent.transcriptBytes === null
    ? start(
        e,
        'retry',
        'fork-refused',
        `the earlier conversation could not be resumed (${e.errorText ?? e.how})`,
      )
    : null;

/** 6.11 A crash with the restarts spent trips the circuit breaker. */
const breaker: Rule = (e) => {
  const { spec, agent } = e;
  const used = crashRestarts(e.obs.restarts);
  if (NORMAL_ENDS.includes(e.endClass) || used < spec.limits.maxRestarts) return null;
  // The agent's own last words when it left no error result (its stderr, in the log).
  const words = e.errorText
    ? `: ${e.errorText}`
    : agent.lastWords
      ? `: ${oneLine(agent.lastWords, 120)}`
      : '';
  const count =
    spec.limits.maxRestarts === 0 ? 'no restarts allowed (max_restarts 0)' : `${plural(used, 'restart')}`;
  return failed('breaker', `circuit breaker: ${count}, last ${e.how}${words}`);
};

/** 6.12 Time is left: a clean exit continues, anything else resumes, after backoff when due. */
const goOn: Rule = (e) => {
  const { spec, agent, endClass, uptime } = e;
  const clean = NORMAL_ENDS.includes(endClass);
  const said = e.errorText ? `: ${e.errorText}` : '';
  // A session shorter than min_uptime counts toward backoff like a crash, so nothing hot-loops.
  const quick = !clean || uptime < spec.limits.minUptime;
  const delay = quick ? restartDelay(e.obs.restarts, uptime, spec.limits) : 0;
  const ending = agent.hung ? `stopped as hung (${e.how})` : `${endLabel(endClass, e.how)}${said}`;
  const stopped =
    endClass === 'clean-exit'
      ? 'clean exit'
      : endClass === 'output-cap'
        ? 'reply cut at the output cap'
        : endClass;
  const why = clean ? `${stopped} after ${formatDuration(uptime)}, time left` : ending;
  const retryAt = new Date(e.endedAt.getTime() + delay * 1000);
  if (e.now < retryAt) return backoffWait(spec, retryAt, `${why}; backing off ${formatDuration(delay)}`);
  if (clean) return start(e, 'continue', 'time-left', why);
  return start(e, 'resume', agent.hung ? 'hang' : 'crash', why);
};

/** What follows an ended session, in order, each with its number: the first with an answer decides. */
export const ENDED_RULES: readonly (readonly [RuleId, Rule])[] = [
  ['6.1', synthesisWrote],
  ['6.1b', jobTimeLimit],
  ['6.2', usageLimit],
  ['6.3', blocked],
  ['6.4', refusedLogin],
  ['6.5', synthesisAgain],
  ['6.6', finished],
  ['6.7', spendCap],
  ['6.8', endTime],
  ['6.9', apiTrouble],
  ['6.10', forkRefused],
  ['6.11', breaker],
  ['6.12', goOn],
];

export function decideEnded(
  spec: RunSpec,
  obs: Observation,
  session: SessionRecord,
  agent: AgentNotRunning,
  now: Date,
): Action {
  const e = endedOf(spec, obs, session, agent, now);
  for (const [rule, decideBy] of ENDED_RULES) {
    const action = decideBy(e);
    if (action) return { ...action, rule };
  }
  // goOn always answers; this only satisfies the type.
  throw new Error('no rule decided an ended session');
}
