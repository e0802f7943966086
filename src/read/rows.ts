import { lstatSync, readdirSync, statSync } from 'node:fs';

import { checkOutput } from '../adapters/check.js';
import { mtime } from '../adapters/files.js';
import { readTextInside } from '../adapters/inside.js';
import { readContinuedBy, readSessionLogs, readTail } from '../adapters/store.js';
import { overnightSocket } from '../adapters/tmux-socket.js';
import { countOpen, parseQuestions, QUESTIONS_MAX_BYTES } from '../core/agent/questions.js';
import { summarizeUsage, wrongConversations, type Usage } from '../core/agent/sessions.js';
import type { SessionLog, UsageWindow } from '../core/agent/stream.js';
import { lazyLocalTime } from '../core/local-time.js';
import type { Review } from '../core/review/types.js';
import { watchHow } from '../core/run/backend.js';
import { attachCommand, tmuxSessionName } from '../core/run/naming.js';
import type { RunPaths } from '../core/run/paths.js';
import { taskHasMore, taskHeadline } from '../core/run/task.js';
import type { RunSpec, RunState } from '../core/run/types.js';
import type { DetailsRow } from '../core/status/details.js';
import { doingNow, type Retrying } from '../core/status/live.js';
import type { RepoRow } from '../core/status/repo.js';
import type { Cause } from '../core/supervise/causes.js';
import { decide } from '../core/supervise/decide.js';
import { waitText } from '../core/supervise/describe.js';
import { crashRestarts } from '../core/supervise/exits.js';
import { reasonOf, stateOf } from '../core/supervise/state.js';
import type { Observation } from '../core/supervise/types.js';
import { verifyResult, type VerifyResult } from '../core/verify/verdict.js';
import { transitionOf } from './final-row.js';

/** One run as `status --json` shows it: the table's columns and more. */
export interface StatusRow extends Omit<DetailsRow, keyof Usage>, Usage, RepoRow {
  /** The name given at launch, when one was. */
  name?: string;
  /** When a run backing off between restarts will be tried again. */
  nextTryAt?: string;
  /** The current session's API retries since the model last answered, while they last. */
  retrying?: Retrying;
  /** The newest line of the run's events log: time, from-state, to-state, action, reason. */
  lastTransition: Record<string, unknown> | null;
  /** A paused run's agent still runs: a pause stops nothing, it only restarts nothing. */
  agentRunning?: true;
  /** The check's verdict, for a run with one (`launch --verify`). */
  verify?: VerifyResult;
  /** The reviewer's review (`review`), once it has ended. */
  review?: Review;
}

/** How much of the events log's end is read for its last line. */
const EVENTS_TAIL = 16 * 1024;

/** The last whole line of events.jsonl; a torn last line falls back to the one before. */
export function lastTransition(paths: RunPaths): Record<string, unknown> | null {
  // Only the end is read: the log grows all night. Its first line may be cut: it is never used.
  const lines = readTail(paths.events, EVENTS_TAIL)
    .split('\n')
    .filter((l) => l.trim() !== '');
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 2); i--) {
    try {
      return transitionOf(JSON.parse(lines[i] as string));
    } catch {
      // torn: try the one before
    }
  }
  return null;
}

/** When findings/ and questions.md last changed: a finished run's counts are redone only then. */
export function countsStamp(paths: RunPaths): string {
  return `${mtimeMs(paths.findings)}:${mtimeMs(paths.questions)}`;
}

/** A file's mtime in whole ms as its Date gives it (no Date made: status asks for two a run); 0 if none. */
function mtimeMs(path: string): number {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? Math.round(st.mtimeMs) : 0;
  } catch {
    return 0;
  }
}

/** How deep findings/ is walked: notes in folders, never a maze. */
export const FINDINGS_DEPTH = 16;

/** Files under findings/, at any depth, hidden ones aside. Walked by hand: usually flat, and cheaper so. */
export function countFindings(dir: string, depth = 0): number {
  // The agent makes the tree: a chain of thousands of directories is not walked to its end.
  if (depth > FINDINGS_DEPTH) return 0;
  let entries;
  try {
    // findings/ as a link to a directory elsewhere is not the run's: nothing in it is counted.
    if (!lstatSync(dir).isDirectory()) return 0;
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let n = 0;
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    if (e.isFile()) n++;
    else if (e.isDirectory()) n += countFindings(`${dir}/${e.name}`, depth + 1);
  }
  return n;
}

export function countQuestions(paths: RunPaths): number {
  try {
    return countOpen(
      parseQuestions(readTextInside(paths.workspace, paths.questions, QUESTIONS_MAX_BYTES) ?? ''),
    );
  } catch {
    return 0;
  }
}

function sessionLogs(paths: RunPaths): SessionLog[] {
  try {
    return readSessionLogs(paths);
  } catch {
    return [];
  }
}

/** What the sessions did and cost, from output.log through its stream index. */
export function usageOf(paths: RunPaths): Usage {
  return summarizeUsage(sessionLogs(paths));
}

/**
 * Why the run is in its state, as a code and in words: a waiting run says what it waits for (the
 * same decision the next pass would make), a finished one its sentinel's.
 */
function whyNow(
  spec: RunSpec,
  obs: Observation,
  now: Date,
): { cause: Cause; reason: string; nextTryAt?: string } {
  if (obs.sentinel) return { cause: obs.sentinel.cause, reason: reasonOf(obs, spec.id) };
  const action = decide(spec, obs, now);
  if (stateOf(obs) === 'waiting' && action.kind === 'wait') {
    const reason = `waiting: ${waitText(action, lazyLocalTime())}`;
    return { cause: action.cause, reason, nextTryAt: action.until.toISOString() };
  }
  return { cause: action.cause, reason: reasonOf(obs, spec.id) };
}

/** The subscription windows as the stream last reported them, across the run's sessions. */
function usageWindows(logs: readonly SessionLog[]): DetailsRow['usageWindows'] {
  const latest = (pick: (s: SessionLog) => UsageWindow | null) => {
    const w = logs.map(pick).findLast((x) => x !== null);
    return w ? { utilization: w.utilization, resetsAt: w.resetsAt?.toISOString() ?? null } : undefined;
  };
  const windows = {
    fiveHour: latest((s) => s.windows.fiveHour),
    sevenDay: latest((s) => s.windows.sevenDay),
  };
  return windows.fiveHour || windows.sevenDay ? windows : undefined;
}

/** A live run that goes on billing paid extra usage (allowed) says so, and since when. */
function overageWarning(spec: RunSpec, obs: Observation, logs: readonly SessionLog[]): string | null {
  const current = logs.findLast((l) => l.n === obs.session?.n);
  if (!spec.allowOverage || !obs.session?.agent.running || !current?.rateLimit?.usingOverage) return null;
  const since = current.overageSince ? ` since ${lazyLocalTime().hm(current.overageSince)}` : '';
  return `on extra usage${since}: the subscription window is spent and allow_overage is on, so it is billed`;
}

/** `logs`: the run's sessions, when the caller has just read them. */
export function buildRow(
  id: string,
  paths: RunPaths,
  spec: RunSpec,
  obs: Observation,
  now: Date,
  logs: SessionLog[] = sessionLogs(paths),
): StatusRow {
  const wrong = wrongConversations(logs, spec.sessionId);
  const warnings = wrong.map(
    (w) =>
      `session ${w.session} ran conversation ${w.conversation} instead of resuming ${w.expected}; ` +
      `later sessions resume ${spec.sessionId}`,
  );
  const overage = overageWarning(spec, obs, logs);
  if (overage) warnings.push(overage);
  const windows = usageWindows(logs);
  const current = logs.findLast((l) => l.n === obs.session?.n);
  const { doing, retrying } = doingNow(spec, obs, current, now, lazyLocalTime());
  return {
    ...summarizeUsage(logs),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(overage ? { onOverage: true as const } : {}),
    ...(windows ? { usageWindows: windows } : {}),
    id,
    // The first line: a brief may be a megabyte, and every dashboard reads this row.
    task: taskHeadline(spec.task),
    ...(taskHasMore(spec.task) ? { taskMore: true } : {}),
    ...(spec.name ? { name: spec.name } : {}),
    ...nightsOf(spec, paths),
    ...(spec.repo
      ? {
          repo: spec.repo.path,
          branch: spec.repo.branch,
          base: spec.repo.base,
          worktree: spec.repo.worktree,
          ...(spec.repo.subdir ? { subdir: spec.repo.subdir } : {}),
        }
      : {}),
    state: stateOf(obs),
    workspace: paths.workspace,
    session: tmuxSessionName(id),
    backend: spec.backend,
    ...(obs.job ? { job: obs.job } : {}),
    watch: watchHow(
      spec.backend,
      attachCommand(id, spec.paths.tmuxSocket, overnightSocket(process.env)),
      `overnight logs -f ${id}`,
    ),
    startedAt: spec.startedAt.toISOString(),
    endsAt: spec.endsAt.toISOString(),
    restarts: crashRestarts(obs.restarts),
    maxRestarts: spec.limits.maxRestarts,
    findings: countFindings(paths.findings),
    questions: countQuestions(paths),
    lastOutputAt: obs.outputAt ? obs.outputAt.toISOString() : null,
    lastTransition: lastTransition(paths),
    report: obs.reportExists,
    ...(doing.length > 0 ? { doing } : {}),
    ...(retrying ? { retrying } : {}),
    ...whyNow(spec, obs, now),
    ...(obs.paused && !obs.sentinel && obs.session?.agent.running ? { agentRunning: true as const } : {}),
    ...(spec.verify ? { verify: verifyOf(spec, paths, obs) } : {}),
    ...(obs.review?.review ? { review: obs.review.review } : {}),
  };
}

function verifyOf(spec: RunSpec, paths: RunPaths, obs: Observation): VerifyResult {
  const checks = obs.checks ?? {};
  return verifyResult(spec.verify, checks, checkOutput(paths, checks.recheck ? 'recheck' : 'final'));
}

/**
 * How the run links to the nights before and after it (`overnight continue`): the follow-up's link
 * is read from the run's own small file, and, for a repository run, where its branch went on.
 */
function nightsOf(
  spec: RunSpec,
  paths: RunPaths,
): Pick<StatusRow, 'continues' | 'continuedBy' | 'handedOver'> {
  const next = readContinuedBy(paths);
  return {
    ...(spec.continues ? { continues: spec.continues } : {}),
    ...(next ? { continuedBy: next.id } : {}),
    ...(next?.head && spec.repo ? { handedOver: next.head } : {}),
  };
}

/** A run whose files cannot be used still gets a row, with the problem as its reason. */
export function brokenRow(
  id: string,
  paths: RunPaths,
  state: RunState,
  problem: string,
  restarts: number,
  /** False where the file is a view only (a finished run's summary): reconcile goes on. */
  skipped = true,
): StatusRow {
  return {
    ...usageOf(paths),
    id,
    task: null,
    state,
    workspace: paths.workspace,
    session: tmuxSessionName(id),
    startedAt: null,
    endsAt: null,
    restarts,
    maxRestarts: null,
    findings: countFindings(paths.findings),
    questions: countQuestions(paths),
    lastOutputAt: mtime(paths.outputLog)?.toISOString() ?? null,
    lastTransition: null,
    reason: skipped ? `${problem} (reconcile skips this run until it is fixed)` : problem,
    problem,
  };
}
