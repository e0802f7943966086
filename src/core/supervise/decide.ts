import { format } from 'date-fns/format';

import { formatDuration } from '../config/duration.js';
import type { Action, Observation, RestartEntry, RunSpec } from '../run/types.js';
import { oneLine } from '../text.js';
import { backoffFor, restartDelay } from './backoff.js';
import { classifyEnd, endLabel, NORMAL_ENDS } from './classify.js';
import type { Limit } from './limits.js';

// The reconciler's one decision: pure, from a spec, an observation and the time.

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  15: 'SIGTERM',
};

/** `exit 1`, `killed by SIGKILL (exit 137)`, or `no exit status recorded`. */
export function describeExit(code: number | null): string {
  if (code === null) return 'no exit status recorded';
  if (code > 128 && code < 160) {
    const name = SIGNALS[code - 128] ?? `signal ${code - 128}`;
    return `killed by ${name} (exit ${code})`;
  }
  return `exit ${code}`;
}

/** Restarts the circuit breaker counts: resumes after a crash, not synthesis. */
export function crashRestarts(restarts: readonly RestartEntry[]): number {
  return restarts.filter((r) => r.mode === 'resume').length;
}

/** Exploring may spend this share of the cap; the rest is kept for the report. */
export const EXPLORE_SHARE = 0.9;
/** Consecutive refused logins before a run fails. */
export const AUTH_TRIES = 2;
export const AUTH_FIX =
  'for unattended runs put a long-lived token from `claude setup-token` in CLAUDE_CODE_OAUTH_TOKEN, or an ANTHROPIC_API_KEY, in the environment you launch from';
/**
 * The synthesis is tried again, with backoff, while its budget lasts; this only guards against a
 * hot loop when backoff is set to nothing.
 */
export const SYNTHESIS_TRIES = 10;
/** Below this, a synthesis could not say anything useful. */
const MIN_SYNTHESIS_USD = 0.01;

const usd = (n: number) => `$${n.toFixed(2)}`;

/** The --max-budget-usd for the next session, or null without a cap. */
export function sessionBudget(spec: RunSpec, mode: string, spentUsd: number): number | null {
  if (spec.maxCost === null) return null;
  const limit = mode === 'synthesis' ? spec.maxCost : spec.maxCost * EXPLORE_SHARE;
  return Math.max(0, Math.floor((limit - spentUsd) * 10000) / 10000);
}

/** Resumes in a row that failed without any output before the run starts a fresh session. */
export const FAILED_RESUMES = 3;

export function decide(spec: RunSpec, obs: Observation, now: Date): Action {
  return escalate(spec, obs, decideSession(spec, obs, now));
}

/**
 * A session that would resume the conversation starts a fresh one instead when resuming cannot
 * work: no transcript (resume would silently start an empty conversation), a transcript too large
 * to load, or resumes that keep failing without output.
 */
function escalate(spec: RunSpec, obs: Observation, action: Action): Action {
  if (action.kind !== 'start' || action.mode === 'initial') return action;
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
  const why =
    obs.transcriptBytes === null
      ? 'the transcript is missing'
      : obs.transcriptBytes > spec.limits.maxTranscript
        ? `the transcript is ${mb(obs.transcriptBytes)}, over max_transcript (${mb(spec.limits.maxTranscript)})`
        : obs.failedResumes >= FAILED_RESUMES
          ? `${obs.failedResumes} resumes in a row failed without output`
          : null;
  return why
    ? { ...action, fresh: why, reason: `${action.reason}; starting a fresh session: ${why}` }
    : action;
}

function decideSession(spec: RunSpec, obs: Observation, now: Date): Action {
  const t = now.getTime();
  const ended = t >= spec.endsAt.getTime();

  // 1. A finished run is left alone, but never with an agent still running.
  if (obs.sentinel) {
    if (obs.agentAlive || obs.wrapperAlive)
      return { kind: 'cleanup', reason: `${obs.sentinel.kind} is present but an agent is still running` };
    return { kind: 'none', reason: obs.sentinel.reason };
  }
  // 2. A paused run is left exactly as it is.
  if (obs.paused) return { kind: 'none', reason: 'paused' };

  const session = obs.session;
  // Launch was interrupted before it started the agent: start it now (or give up if too late).
  if (!session) {
    if (ended)
      return {
        kind: 'finish',
        sentinel: 'DONE',
        reason: 'no report: the end time passed before the agent ever started',
        stopAgent: false,
      };
    return { kind: 'start', mode: 'initial', reason: 'first session was never started', exit: null };
  }

  // 3. A live agent keeps working until its end time; a synthesis until its budget runs out.
  if (obs.agentAlive) {
    if (session.mode === 'synthesis') {
      if (t >= spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000) {
        return {
          kind: 'finish',
          sentinel: 'DONE',
          reason: 'report incomplete: the synthesis was still running when its budget ran out',
          stopAgent: true,
        };
      }
      // A synthesis stuck on a question or hung is stopped and tried again while its budget lasts.
      if (obs.promptSeen)
        return {
          kind: 'interrupt',
          hung: true,
          reason: `the synthesis is waiting for input nobody will give: "${obs.promptSeen}"`,
        };
      return watchForHang(spec, obs, now) ?? { kind: 'none', reason: 'writing the report' };
    }
    if (obs.promptSeen)
      return {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: `the agent is waiting for input nobody will give: "${obs.promptSeen}"`,
        stopAgent: true,
      };
    if (ended)
      return { kind: 'interrupt', reason: 'end time reached: stopping exploration for the synthesis' };
    return watchForHang(spec, obs, now) ?? { kind: 'none', reason: 'agent running' };
  }
  // The wrapper is between starting the agent and recording it, or between its exit and the record.
  if (!obs.exit && obs.wrapperAlive) return { kind: 'none', reason: 'agent starting or just ended' };

  const exitCode = obs.exit ? obs.exit.code : null;
  const how = describeExit(exitCode);
  // When the session ended and how long it ran (restart.log keeps it; backoff is computed from it).
  const endedAt = obs.exit?.at ?? obs.outputAt ?? session.startedAt;
  const uptime = Math.max(0, Math.round((endedAt.getTime() - session.startedAt.getTime()) / 1000));

  // How the session ended, named once; the agent's own error text says more than an exit status.
  const endClass = classifyEnd({
    exitCode,
    result: obs.result,
    limited: obs.limit !== null,
    auth: obs.authFailures > 0,
    reportExists: obs.reportExists,
    stoppedByUs: obs.hung,
  });
  const errorText = obs.result?.isError && obs.result.text ? oneLine(obs.result.text, 120) : null;

  if (session.mode === 'synthesis' && obs.reportExists)
    return {
      kind: 'finish',
      sentinel: 'DONE',
      reason: 'finished: REPORT.md written by the synthesis',
      stopAgent: false,
    };
  // A usage limit is waited out and never counted as a crash; one that no wait lifts ends the run.
  if (endClass === 'usage-limit' && obs.limit)
    return limitAction(spec, obs.limit, session.mode, endedAt, uptime, exitCode, now);
  // Refused credentials have their own count: retried once (a token may have been refreshed), then the fix.
  if (endClass === 'auth') {
    if (obs.authFailures >= AUTH_TRIES) {
      return {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: `authentication failed ${obs.authFailures} times in a row (${errorText ?? how}); ${AUTH_FIX}`,
        stopAgent: false,
      };
    }
    if (session.mode !== 'synthesis' && !ended)
      return {
        kind: 'start',
        mode: 'retry',
        reason: `authentication failed (${errorText ?? how}); trying once more`,
        exit: exitCode,
        uptime,
      };
  }

  // 4. The synthesis has ended without a report: tried again while its budget lasts.
  if (session.mode === 'synthesis') {
    const tries = obs.restarts.filter((r) => r.mode === 'synthesis').length;
    const budgetLeft = t < spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000;
    const moneyLeft = spec.maxCost === null || obs.costUsd < spec.maxCost;
    if (budgetLeft && moneyLeft && tries < SYNTHESIS_TRIES) {
      const why = `the synthesis ended without REPORT.md (${how})`;
      // Backoff between tries too: the first at once, then backoff, doubling.
      const delay = backoffFor(tries, spec.limits);
      const retryAt = new Date(endedAt.getTime() + delay * 1000);
      if (t < retryAt.getTime())
        return { kind: 'wait', until: retryAt, reason: `${why}; next try at ${format(retryAt, 'HH:mm:ss')}` };
      return {
        kind: 'start',
        mode: 'synthesis',
        reason: `${why}; trying again (${tries + 1}/${SYNTHESIS_TRIES})`,
        exit: exitCode,
        uptime,
      };
    }
    return {
      kind: 'finish',
      sentinel: 'DONE',
      reason: `no report: the synthesis ended without writing REPORT.md (${how}); findings/ holds what was found`,
      stopAgent: false,
    };
  }
  // 5. The agent finished the job itself.
  if (exitCode === 0 && obs.reportExists)
    return { kind: 'finish', sentinel: 'DONE', reason: 'finished: REPORT.md written', stopAgent: false };
  // The spend cap: exploring stops at its share; the report gets what is left, if anything.
  if (spec.maxCost !== null && obs.costUsd >= spec.maxCost * EXPLORE_SHARE) {
    const spent = `spend cap: ${usd(obs.costUsd)} of ${usd(spec.maxCost)} spent`;
    if (spec.maxCost - obs.costUsd >= MIN_SYNTHESIS_USD)
      return { kind: 'start', mode: 'synthesis', reason: spent, exit: exitCode, uptime };
    return {
      kind: 'finish',
      sentinel: 'FAILED',
      reason: `${spent}, nothing left for the report`,
      stopAgent: false,
    };
  }
  // Time is up: one synthesis session writes the report.
  if (ended)
    return { kind: 'start', mode: 'synthesis', reason: `end time reached (${how})`, exit: exitCode, uptime };

  // 6. Time is left. A clean exit continues; anything else is a crash, resumed unless the breaker trips.
  const clean = NORMAL_ENDS.includes(endClass);
  const said = errorText ? `: ${errorText}` : '';
  if (!clean) {
    const used = crashRestarts(obs.restarts);
    if (used >= spec.limits.maxRestarts) {
      const s = used === 1 ? '' : 's';
      return {
        kind: 'finish',
        sentinel: 'FAILED',
        reason: `circuit breaker: ${used} restart${s}, last ${how}${said}`,
        stopAgent: false,
      };
    }
  }
  // A session shorter than min_uptime counts toward backoff like a crash, so nothing hot-loops.
  const quick = !clean || uptime < spec.limits.minUptime;
  const delay = quick ? restartDelay(obs.restarts, uptime, spec.limits) : 0;
  const ending = obs.hung ? `stopped as hung (${how})` : `${endLabel(endClass)} (${how})${said}`;
  const stopped = endClass === 'clean-exit' ? 'clean exit' : endClass;
  const why = clean ? `${stopped} after ${formatDuration(uptime)}, time left` : ending;
  const retryAt = new Date(endedAt.getTime() + delay * 1000);
  if (t < retryAt.getTime()) {
    return {
      kind: 'wait',
      until: retryAt,
      reason: `${why}; backing off ${formatDuration(delay)}, next try at ${format(retryAt, 'HH:mm:ss')}`,
    };
  }
  return { kind: 'start', mode: clean ? 'continue' : 'resume', reason: why, exit: exitCode, uptime };
}

/** Without a readable reset time, a limit is waited out for this long. */
export const DEFAULT_LIMIT_WAIT = 3600;

function limitAction(
  spec: RunSpec,
  limit: Limit,
  mode: string,
  endedAt: Date,
  uptime: number,
  exitCode: number | null,
  now: Date,
): Action {
  if (limit.kind === 'hard')
    return {
      kind: 'finish',
      sentinel: 'FAILED',
      reason: `usage limit that waiting will not lift: ${limit.what}`,
      stopAgent: false,
    };
  const resetsAt = limit.resetsAt ?? new Date(endedAt.getTime() + DEFAULT_LIMIT_WAIT * 1000);
  const resumeAt = new Date(resetsAt.getTime() + spec.limits.limitMargin * 1000);
  const budgetEnd = spec.endsAt.getTime() + spec.limits.synthesisBudget * 1000;
  if (resumeAt.getTime() > budgetEnd) {
    return {
      kind: 'finish',
      sentinel: 'DONE',
      reason: `no report: ${limit.what}, lifting only at ${format(resumeAt, 'HH:mm')}, after the synthesis budget; findings/ holds what was found`,
      stopAgent: false,
    };
  }
  if (now.getTime() < resumeAt.getTime()) {
    return {
      kind: 'wait',
      until: resumeAt,
      reason: `${limit.what}: resets ${format(resetsAt, 'HH:mm')}; waiting until ${format(resumeAt, 'HH:mm:ss')}`,
    };
  }
  const synthesis = mode === 'synthesis' || now.getTime() >= spec.endsAt.getTime();
  return {
    kind: 'start',
    mode: synthesis ? 'synthesis' : 'continue',
    reason: `usage limit lifted (${limit.what})`,
    exit: exitCode,
    uptime,
  };
}

/**
 * A live agent silent for `stale_after` is watched (the time is kept on disk: passes have no
 * memory); still silent `hang_grace` later, it is stopped and resumed as a crash. Fresh output
 * makes an older mark stale itself.
 */
function watchForHang(spec: RunSpec, obs: Observation, now: Date): Action | null {
  const session = obs.session;
  if (!session) return null;
  const lastOutput = obs.outputAt && obs.outputAt > session.startedAt ? obs.outputAt : session.startedAt;
  const silent = (now.getTime() - lastOutput.getTime()) / 1000;
  if (silent < spec.limits.staleAfter) return null;
  const since = obs.staleSince && obs.staleSince >= lastOutput ? obs.staleSince : null;
  if (!since)
    return {
      kind: 'watch',
      reason: `no output for ${formatDuration(silent)}; stopping it if still silent in ${formatDuration(spec.limits.hangGrace)}`,
    };
  if ((now.getTime() - since.getTime()) / 1000 < spec.limits.hangGrace)
    return { kind: 'none', reason: `silent for ${formatDuration(silent)}; watching` };
  return { kind: 'interrupt', hung: true, reason: `hung: no output for ${formatDuration(silent)}` };
}
