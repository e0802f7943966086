import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { agentArgs, promptFor } from '../core/agent/args.js';
import { RunFileError } from '../core/errors.js';
import { parseAgentEnv, renderAgentEnv, runEnvironment } from '../core/run/agent-env.js';
import { agentCwd, type RunPaths } from '../core/run/paths.js';
import type { RunSpec, SessionMode, SessionRecord } from '../core/run/types.js';
import { backendOf, type Backend, type SessionRef } from './backend/index.js';
import { appendLine, exists, readText, writeFileAtomic } from './files.js';
import { selfCommand } from './install.js';
import { DEFAULT_STOP_GRACE, endLeftoverGroup, isAlive, type StopGrace } from './processes.js';
import { writeSessionSettings } from './sandbox.js';
import { appendRestart, readAgent, readContinuation, readSessionLogs, writeSession } from './store.js';

// Starting and stopping one run's agent session through the wrapper, on the run's backend.

/** The wrapper ships beside the bundle in the package: dist/ and src/wrapper/ are siblings. */
export const WRAPPER_PATH = fileURLToPath(new URL('../src/wrapper/agent.sh', import.meta.url));

/**
 * The captured environment (written at launch) in the format the wrapper sources, with what
 * overnight sets: every session, a restart by a pass from cron or launchd too, runs with exactly
 * these variables, whatever tmux, cron or launchd hold. A run launched by an older version (NAME=value
 * lines, or no OVERNIGHT_RUN_DIR) is rewritten once, same variables. Gone, no session can start.
 */
function ensureAgentEnv(spec: RunSpec, paths: RunPaths): Record<string, string> {
  const text = readText(paths.agentEnv);
  if (text === null)
    throw new RunFileError(
      paths.agentEnv,
      'is missing: the environment captured at launch is gone, so no session can start with it; ' +
        'launch the task again',
    );
  const captured = Object.fromEntries(parseAgentEnv(text));
  const want = renderAgentEnv(
    runEnvironment(captured, paths.workspace, spec.repo !== null, spec.sandbox ? paths.tmp : null),
  );
  if (want !== text) writeFileAtomic(paths.agentEnv, want);
  return captured;
}

export interface SessionStart {
  spec: RunSpec;
  paths: RunPaths;
  mode: SessionMode;
  previous: SessionRecord | null;
  reason: string;
  exit: number | null;
  now: Date;
  /** Spent so far in USD, for the session's --max-budget-usd under a spend cap. */
  spentUsd?: number;
  /** How long the previous session ran, for restart.log (backoff is computed from it). */
  uptime?: number | null;
  /** A fresh conversation (the new id is in `spec`), handed the previous session's last words. */
  handover?: { lastResult: string | null };
  /**
   * `previous` never started its agent: it is started again as recorded (its prompt, restart.log
   * line and marker stand), under the same number.
   */
  again?: boolean;
  /** A late synthesis: when it must be done by. */
  deadline?: Date;
  /** Said after the prompt (the check's verdict, for the synthesis). */
  note?: string;
}

/**
 * Records the new session before starting it: if this process dies in between, or tmux refuses
 * it, the next pass sees a session whose agent never recorded itself and starts it again under
 * the same number (counted once, never an agent twice).
 */
export async function startSession(s: SessionStart): Promise<SessionRecord> {
  // Never two agents on one run, whatever the caller observed.
  const previous = readAgent(s.paths, s.previous);
  if (previous && (await isAlive(previous.pid, previous.startTime)))
    throw new Error(`session ${s.previous?.n}'s agent (pid ${previous.pid}) is still running`);
  // What the dead agent started and left behind in its group ends before another agent starts.
  if (previous) endLeftoverGroup(previous.pid, previous.startTime);
  // tmux would start the agent in the home directory instead of a directory that is gone.
  const cwd = agentCwd(s.spec, s.paths);
  if (!exists(cwd)) throw new Error(`the agent's working directory ${cwd} is gone`);
  const captured = ensureAgentEnv(s.spec, s.paths);
  // The sandbox and the file tools' Read rules, for the home the agent runs with.
  const settings = writeSessionSettings(
    dirname(s.paths.workspace),
    s.spec,
    s.paths,
    captured.HOME || homedir(),
    captured,
    s.mode,
  );
  const again = s.again && s.previous ? s.previous : null;
  const fresh = again ? again.fresh === true : s.handover !== undefined;
  const deadline = again ? again.deadline : s.deadline;
  // A follow-up's first session resumes the earlier conversation into its own (or is handed over);
  // its later fresh sessions hear the answers again.
  const continuation = s.spec.continues ? readContinuation(s.paths) : null;
  const fork = s.mode === 'initial' && !s.handover ? (continuation?.fork ?? null) : null;
  const session: SessionRecord = {
    n: again ? again.n : (s.previous?.n ?? 0) + 1,
    mode: s.mode,
    startedAt: s.now,
    ...(fresh ? { fresh: true } : {}),
    ...(fork ? { forked: true } : {}),
    ...(deadline ? { deadline } : {}),
  };
  if (!again)
    writeFileAtomic(
      s.paths.prompt,
      promptFor(s.spec, s.mode, s.now, s.handover, s.paths.workspace, continuation) + (s.note ?? ''),
    );
  writeSession(s.paths, session);
  if (s.mode !== 'initial' && !again)
    appendRestart(s.paths, {
      at: s.now,
      mode: s.mode,
      exit: s.exit,
      uptime: s.uptime ?? null,
      reason: s.reason,
    });
  // Segment marker: each session's part of output.log starts with one line saying which it is.
  if (!again || readSessionLogs(s.paths).at(-1)?.n !== session.n)
    appendLine(
      s.paths.outputLog,
      JSON.stringify({
        type: 'overnight_session',
        session: session.n,
        mode: s.mode,
        conversation: s.spec.sessionId,
        at: s.now.toISOString(),
        // The fork's running cost starts at what the earlier conversation had cost (not this run's).
        ...(fork ? { forkedFrom: fork, inheritedCostUsd: continuation?.inheritedCostUsd ?? 0 } : {}),
      }),
    );
  const argv = [
    '/bin/sh',
    WRAPPER_PATH,
    s.paths.state,
    String(session.n),
    selfCommand().node,
    selfCommand().cli,
    '--',
    s.spec.paths.claude,
    ...agentArgs(s.spec, s.mode, s.spentUsd ?? 0, fresh, s.paths.workspace, fork, settings),
  ];
  // An earlier try of this session (started again under its number) left a wrapper record that
  // is no record of this one's wrapper.
  if (again) rmSync(s.paths.wrapperFile(session.n), { force: true });
  await backendOf(s.spec, s.paths).start({ id: s.spec.id, paths: s.paths }, cwd, argv);
  return session;
}

const EXIT_RECORD_WAIT_MS = 10_000;

/** A run's session on its backend: where its wrapper is looked for and stopped. */
export interface WrapperRef {
  backend: Backend;
  ref: SessionRef;
}

export function wrapperOf(spec: Pick<RunSpec, 'id' | 'backend' | 'paths'>, paths: RunPaths): WrapperRef {
  return { backend: backendOf(spec, paths), ref: { id: spec.id, paths } };
}

/** Whether the backend shows the run's wrapper still running. */
export async function wrapperRunning(w: WrapperRef): Promise<boolean> {
  return (await w.backend.observe(w.ref)).alive;
}

/**
 * Stops the current session's agent (SIGINT, SIGTERM, SIGKILL) and waits for its exit record,
 * which the wrapper writes at once (flushed to disk: on a loaded machine that can take a while).
 * A wrapper that is gone (its tmux server killed, say) writes nothing: then it does not wait.
 */
export async function stopAgent(
  wrapper: WrapperRef,
  session: SessionRecord | null,
  grace: StopGrace = DEFAULT_STOP_GRACE,
): Promise<string> {
  const paths = wrapper.ref.paths;
  if (!session || !readAgent(paths, session)) return 'gone';
  const how = await wrapper.backend.interrupt(wrapper.ref, session, grace);
  if (how === 'gone') return how;
  const deadline = Date.now() + EXIT_RECORD_WAIT_MS;
  for (let polls = 0; readText(paths.exitFile(session.n)) === null && Date.now() < deadline; polls++) {
    if (polls % 10 === 0 && !(await wrapperRunning(wrapper))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return how;
}

/** Removes what is left of the run's session on its backend (a lingering tmux session, say). */
export async function removeSession(w: WrapperRef): Promise<void> {
  await w.backend.stop(w.ref);
}
