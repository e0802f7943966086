import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';

import {
  armWakeTimer,
  removeTmuxSession,
  startSession,
  stopAgent,
  type WrapperRef,
} from '../adapters/agent.js';
import { writeFileAtomic } from '../adapters/files.js';
import { stopGraceOf } from '../adapters/processes.js';
import {
  appendEvent,
  hasSentinel,
  markStale,
  observe,
  readSentinel,
  readSession,
  readSessionLogs,
  readSpec,
  writeSentinel,
  writeSpec,
} from '../adapters/store.js';
import type { PaneInfo } from '../adapters/tmux.js';
import { archiveTranscript } from '../adapters/transcript.js';
import { resolveExecutable } from '../adapters/which.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import type { RunPaths } from '../core/run/paths.js';
import type { Action, Observation, RunSpec } from '../core/run/types.js';
import { stateAfter, stateOf } from '../core/supervise/state.js';
import { buildRow, countsStamp } from '../dashboard/rows.js';

// Acting on one run's decision, through the adapters, and recording what was done.

export interface PassContext {
  root: string;
  settings: Settings;
  io: Io;
  /** Set when another pass reclaimed the lock: from then on this one starts and finishes nothing. */
  lockLost?: boolean;
  /** tmux is asked once per pass and server, and only if some run needs it. */
  panes?: Map<string, Promise<Map<string, PaneInfo>>>;
}

function wrapperOf(spec: RunSpec): WrapperRef {
  return { tmux: spec.paths.tmux, socket: spec.paths.tmuxSocket, id: spec.id };
}

export function panesOf(ctx: PassContext, spec: RunSpec): Promise<Map<string, PaneInfo>> {
  ctx.panes ??= new Map();
  const key = spec.paths.tmuxSocket ?? '';
  let panes = ctx.panes.get(key);
  if (!panes) {
    panes = import('../adapters/tmux.js').then(({ Tmux }) =>
      new Tmux(spec.paths.tmux, spec.paths.tmuxSocket).panes(),
    );
    ctx.panes.set(key, panes);
  }
  return panes;
}

export async function observeRun(
  id: string,
  paths: RunPaths,
  ctx: PassContext,
): Promise<{ spec: RunSpec; obs: Observation }> {
  const spec = await readSpec(paths);
  const obs = await observe(paths, spec, () => panesOf(ctx, spec), ctx.io.env);
  return { spec, obs };
}

/**
 * A run with a sentinel whose agents are not yet verified gone: stop what is left, then write
 * its status summary, which marks it as finished for every later pass. False for live runs.
 */
export async function finalizeFinished(id: string, paths: RunPaths, now: Date): Promise<boolean> {
  if (!hasSentinel(paths)) return false;
  let spec: RunSpec | null = null;
  try {
    spec = await readSpec(paths);
  } catch {
    // A corrupt run.yaml does not stop the cleanup: tmux is then looked up on PATH.
  }
  const session = readSession(paths);
  const tmuxBin = spec?.paths.tmux ?? resolveExecutable('tmux');
  const wrapper = tmuxBin ? { tmux: tmuxBin, socket: spec?.paths.tmuxSocket ?? null, id } : undefined;
  await stopAgent(paths, session, spec ? stopGraceOf(spec.limits.stopGrace) : undefined, wrapper);
  if (tmuxBin) await removeTmuxSession(tmuxBin, id, spec?.paths.tmuxSocket ?? null);
  // The captured environment holds credentials; a finished run needs them no more.
  rmSync(paths.agentEnv, { force: true });
  if (spec) {
    const obs = await observe(paths, spec, async () => new Map(), process.env);
    writeFileAtomic(
      paths.final,
      JSON.stringify({ ...buildRow(id, paths, spec, obs, now), countsStamp: countsStamp(paths) }) + '\n',
    );
  }
  return true;
}

/**
 * Every later session uses the model the first one actually ran (its init event), so a run
 * never changes model mid-night because an alias moved. Recorded in run.yaml once.
 */
async function pinModel(spec: RunSpec, paths: RunPaths, now: Date): Promise<RunSpec> {
  if (spec.model && !ALIASES.has(spec.model)) return spec;
  const used = readSessionLogs(paths).find((s) => s.model && s.model !== '<synthetic>')?.model;
  if (!used || used === spec.model) return spec;
  const pinned = { ...spec, model: used };
  await writeSpec(paths, pinned);
  appendEvent(paths, now, { action: 'pin-model', model: used, was: spec.model });
  return pinned;
}

/**
 * A new conversation for the run: the old transcript is archived (moved, never deleted), run.yaml
 * records the new session id, and the new session is handed the last words of the old one.
 */
async function startAfresh(
  spec: RunSpec,
  paths: RunPaths,
  now: Date,
  env: NodeJS.ProcessEnv,
): Promise<{ spec: RunSpec; handover: { lastResult: string | null } }> {
  const archived = archiveTranscript(paths, spec.sessionId, env);
  // The last words worth handing over: a successful result's text, never an error message.
  const lastResult =
    readSessionLogs(paths).findLast((s) => s.result?.text && !s.result.isError)?.result?.text ?? null;
  const fresh = { ...spec, sessionId: randomUUID() };
  await writeSpec(paths, fresh);
  appendEvent(paths, now, {
    action: 'fresh-session',
    previous: spec.sessionId,
    conversation: fresh.sessionId,
    archived,
  });
  return { spec: fresh, handover: { lastResult } };
}

/** Names that Claude Code resolves to whatever model is current. */
const ALIASES = new Set(['opus', 'sonnet', 'haiku', 'opusplan', 'default', 'best']);

/** Carries out the action; false when nothing changed (a wait whose timer was already armed). */
export async function act(
  id: string,
  spec: RunSpec,
  paths: RunPaths,
  obs: Observation,
  action: Action,
  ctx: PassContext,
): Promise<boolean> {
  const now = ctx.io.now();
  const from = stateOf(obs);
  if (ctx.lockLost && action.kind !== 'none')
    throw new Error('the reconcile lock was lost; left for the next pass');
  const record = (details: Record<string, unknown> = {}) =>
    appendEvent(paths, now, {
      from,
      to: stateAfter(action, from),
      action: action.kind,
      reason: action.reason,
      ...details,
    });

  switch (action.kind) {
    case 'none':
      return false;
    case 'wait': {
      const armed = await armWakeTimer(spec, paths, action.until, now, ctx.io.env);
      if (armed) record({ until: action.until.toISOString() });
      return armed;
    }
    case 'cleanup':
    case 'finish': {
      if (action.kind === 'cleanup' || action.stopAgent)
        await stopAgent(paths, obs.session, stopGraceOf(spec.limits.stopGrace), wrapperOf(spec));
      await removeTmuxSession(spec.paths.tmux, id, spec.paths.tmuxSocket);
      if (action.kind === 'finish') writeSentinel(paths, action.sentinel, action.reason);
      record();
      await finalizeFinished(id, paths, now);
      return true;
    }
    case 'watch':
      if (obs.session) markStale(paths, obs.session.n, now);
      record();
      return true;
    case 'interrupt': {
      // Marked first: the session's end is then read as a hang, whatever the signal did.
      if (action.hung && obs.session)
        writeFileAtomic(paths.hungFile(obs.session.n), `${now.toISOString()}\n`);
      const how = await stopAgent(paths, obs.session, stopGraceOf(spec.limits.stopGrace), wrapperOf(spec));
      record({ signal: how });
      return true;
    }
    case 'start': {
      // `stop` may have written a sentinel since this run was observed: never start an agent after it.
      if (readSentinel(paths)) return false;
      // Resumed sessions must carry the run's conversation; one that silently started anew is
      // recorded (status shows it) and the next start resumes the run's own conversation again.
      if (
        obs.session &&
        obs.session.mode !== 'initial' &&
        obs.conversation &&
        obs.conversation !== spec.sessionId
      ) {
        appendEvent(paths, now, {
          action: 'wrong-conversation',
          session: obs.session.n,
          conversation: obs.conversation,
          expected: spec.sessionId,
        });
      }
      let pinned = await pinModel(spec, paths, now);
      let handover: { lastResult: string | null } | undefined;
      if (action.fresh) ({ spec: pinned, handover } = await startAfresh(pinned, paths, now, ctx.io.env));
      const session = await startSession({
        spec: pinned,
        paths,
        mode: action.mode,
        previous: obs.session,
        reason: action.reason,
        exit: action.exit,
        now,
        spentUsd: obs.costUsd,
        uptime: action.uptime,
        handover,
      });
      record({
        session: session.n,
        mode: action.mode,
        exit: action.exit,
        ...(action.fresh ? { fresh: action.fresh, conversation: pinned.sessionId } : {}),
      });
      return true;
    }
  }
}
