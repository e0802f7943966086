import { stopGraceOf } from '../adapters/processes.js';
import { hasShell } from '../core/agent/shell-briefing.js';
import { reviewLine, reviewNote } from '../core/review/words.js';
import { agentCwd, type RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { lastWords, mayPin, modelToPin, wrongConversation } from '../core/supervise/next-session.js';
import { stateAfter, stateOf } from '../core/supervise/state.js';
import type { Action, Observation } from '../core/supervise/types.js';
import { fixPrompt } from '../core/verify/fix.js';
import { changedTestsLine, synthesisNote, verdictLine } from '../core/verify/verdict-text.js';
import { verifyResult } from '../core/verify/verdict.js';
import { REAL_ACT_DEPS, type ActDeps } from './act-deps.js';
import type { PassContext } from './context.js';

// Act: carry out decide's action through the adapters, and record what was done.

/** Carries out the action; false when nothing changed (a wait whose timer was already armed). */
export async function act(
  spec: RunSpec,
  paths: RunPaths,
  obs: Observation,
  action: Action,
  ctx: PassContext,
  now: Date,
  deps: ActDeps = REAL_ACT_DEPS,
): Promise<boolean> {
  const { sessions, checks, store } = deps;
  const from = stateOf(obs);
  if (ctx.lockLost && action.kind !== 'none')
    throw new Error('the reconcile lock was lost; left for the next pass');
  const to = stateAfter(action, from);
  const record = (details: Record<string, unknown> = {}) =>
    store.append(paths, now, {
      from,
      to,
      action: action.kind,
      cause: action.cause,
      reason: action.reason,
      ...details,
    });
  const grace = stopGraceOf(spec.limits.stopGrace);
  const session = obs.session;
  if (['start', 'finish', 'check'].includes(action.kind)) await commitForAgent(spec, paths, obs, now, deps);

  switch (action.kind) {
    case 'none':
      return false;
    case 'wait': {
      const armed = await deps.armWake(spec, paths, action.until, now, ctx.io.env);
      const resets = action.resetsAt ? { resetsAt: action.resetsAt.toISOString() } : {};
      // `late`: the report waits for a limit that lifts after the synthesis budget (a notice of its own).
      const late = action.late ? { late: true } : {};
      if (armed) record({ until: action.until.toISOString(), ...resets, ...late });
      return armed;
    }
    case 'cleanup':
    case 'finish': {
      if (action.kind === 'cleanup' || action.stopAgent)
        await sessions.stopAgent(spec, paths, session, grace);
      await sessions.remove(spec, paths);
      if (action.kind === 'finish') store.writeSentinel(paths, action.sentinel, action.reason, action.cause);
      // The check's verdict as data on the line, for the notification (never read from the reason).
      record(action.kind === 'finish' ? finalVerdict(spec, obs) : {});
      await deps.finalize(spec.id, paths, now, ctx.hooks);
      return true;
    }
    case 'watch':
      if (session) store.markStale(paths, session.n, now);
      record();
      return true;
    case 'interrupt': {
      // Marked first: the session's end is then read as a hang, whatever the signal did.
      if (action.hung && session) store.markHung(paths, session.n, now);
      const hung = action.hung ? { hung: true } : {};
      record({ signal: await sessions.stopAgent(spec, paths, session, grace), ...hung });
      return true;
    }
    case 'start':
      return start(spec, paths, obs, action, ctx, now, record, deps);
    case 'check': {
      // `stop` may have written a sentinel since this run was observed: nothing starts after it.
      if (store.readSentinel(paths)) return false;
      const again = action.again ? { again: true } : {};
      if (action.step === 'review') {
        const tries = action.again ? (obs.review?.step.tries ?? 1) + 1 : 1;
        await deps.reviews.start(spec, paths, now, tries);
        record({ step: action.step, tries, ...again });
        return true;
      }
      const tries = action.again ? (obs.checks?.[action.step]?.tries ?? 1) + 1 : 1;
      // The final check runs on what is delivered: the night committed, the commit named.
      const delivered = spec.repo && action.step !== 'baseline' ? await deps.deliver(spec) : {};
      await checks.start(spec, paths, action.step, now, tries, delivered);
      record({ step: action.step, tries, ...again, ...delivered });
      return true;
    }
    case 'stop-check':
      await checks.stop(paths, action.step, now);
      record({ step: action.step });
      return true;
  }
}

async function start(
  spec: RunSpec,
  paths: RunPaths,
  obs: Observation,
  action: Extract<Action, { kind: 'start' }>,
  ctx: PassContext,
  now: Date,
  record: (details: Record<string, unknown>) => void,
  { sessions, checks, store, newSessionId }: ActDeps,
): Promise<boolean> {
  // `stop` may have written a sentinel since this run was observed: never start an agent after it.
  if (store.readSentinel(paths)) return false;
  const previous = obs.session;
  const ended = previous && !previous.agent.running ? previous.agent : null;
  // Resumed sessions must carry the run's conversation; one that silently started anew is
  // recorded (status shows it) and the next start resumes the run's own conversation again.
  const wrong = previous && ended ? wrongConversation(spec, previous, ended.conversation) : null;
  if (wrong) store.append(paths, now, { action: 'wrong-conversation', ...wrong });
  // The log is read only when something here needs it (a full model name is never re-pinned).
  let logs: ReturnType<typeof store.readSessionLogs> | undefined;
  const sessionLogs = () => (logs ??= store.readSessionLogs(paths));
  let next = spec;
  const model = mayPin(spec.model) ? modelToPin(spec.model, sessionLogs()) : null;
  if (model) {
    next = { ...next, model };
    await store.writeSpec(paths, next);
    store.append(paths, now, { action: 'pin-model', model, was: spec.model });
  }
  let handover: { lastResult: string | null } | undefined;
  if (action.fresh) {
    // A new conversation: the old transcript is archived (moved, never deleted), run.yaml records
    // the new session id, and the new session is handed the last words of the old one.
    const archived = store.archiveTranscript(paths, agentCwd(next, paths), next.sessionId, ctx.io.env);
    const old = next.sessionId;
    next = { ...next, sessionId: newSessionId() };
    await store.writeSpec(paths, next);
    store.append(paths, now, {
      action: 'fresh-session',
      previous: old,
      conversation: next.sessionId,
      archived,
    });
    handover = { lastResult: lastWords(sessionLogs()) };
  }
  const session = await sessions.start({
    spec: next,
    paths,
    mode: action.mode,
    previous,
    reason: action.reason,
    exit: action.exit,
    now,
    spentUsd: ended?.costUsd ?? 0,
    uptime: action.uptime,
    handover,
    again: action.again,
    deadline: action.deadline,
    ...checkNote(spec, paths, obs, action, checks.output),
  });
  const fresh = action.fresh ? { fresh: action.fresh, conversation: next.sessionId } : {};
  const again = action.again ? { again: true } : {};
  record({ session: session.n, mode: action.mode, exit: action.exit, ...fresh, ...again });
  return true;
}

/**
 * The synthesis hears the check's verdict (overnight's, which the report may not contradict); the
 * fix session hears the failures it is to fix, and where the output is.
 */
function checkNote(
  spec: RunSpec,
  paths: RunPaths,
  obs: Observation,
  action: Extract<Action, { kind: 'start' }>,
  checkOutput: ActDeps['checks']['output'],
): { note?: string } {
  const review = action.mode === 'synthesis' && obs.review?.review ? reviewNote(obs.review.review) : '';
  if (!spec.verify) return review ? { note: review } : {};
  const checks = obs.checks ?? {};
  if (action.mode === 'synthesis')
    return { note: synthesisNote(verifyResult(spec.verify, checks, null)) + review };
  if (action.mode !== 'fix') return {};
  const result = verifyResult(spec.verify, checks, checkOutput(paths, 'final'));
  const deadline = action.deadline ?? obs.session?.deadline;
  return { note: fixPrompt(result, deadline, spec.repo !== null) };
}

/** `{verdict, check, review}` for a run that ends: what the notification says of its check and review. */
function finalVerdict(spec: RunSpec, obs: Observation): Record<string, string> {
  const review = obs.review?.review;
  const reviewed: Record<string, string> = review
    ? { review: review.verdict ?? 'unfinished', reviewLine: reviewLine(review) }
    : {};
  if (!spec.verify) return reviewed;
  const result = verifyResult(spec.verify, obs.checks ?? {}, null);
  const tests = changedTestsLine(result);
  const check = tests ? `${verdictLine(result)}; ${tests}` : verdictLine(result);
  return { verdict: result.verdict, check, ...reviewed };
}

/**
 * An agent with no shell (a run without the sandbox) cannot commit: what its ended session left in
 * a repository run's worktree is committed by overnight before anything follows it. Idempotent:
 * with nothing left, nothing is done. A commit that fails is recorded; the run goes on.
 */
async function commitForAgent(
  spec: RunSpec,
  paths: RunPaths,
  obs: Observation,
  now: Date,
  deps: ActDeps,
): Promise<void> {
  const session = obs.session;
  if (!spec.repo || hasShell(spec.allowedTools) || !session || session.agent.running) return;
  try {
    const subject = `overnight: the agent's work in session ${session.n}, committed for it`;
    const done = await deps.commitWork(spec, subject);
    if (done.commit)
      deps.store.append(paths, now, {
        action: 'commit',
        session: session.n,
        commit: done.commit,
        files: done.files,
      });
  } catch (err) {
    deps.store.append(paths, now, {
      action: 'commit-failed',
      session: session.n,
      error: (err as Error).message,
    });
  }
}
