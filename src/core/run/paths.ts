import { dirname, join } from 'node:path';

// Every file of a run, derived from the runs root and the run id. `node:path` is pure string work.

export interface RunPaths {
  workspace: string;
  claudeMd: string;
  questions: string;
  findings: string;
  report: string;
  /**
   * overnight's own records of the run, `<runs root>/.overnight/<run id>/`: beside the run's
   * directory, never below it or the worktree, so the agent (which writes only below those) cannot
   * touch anything overnight decides from or executes.
   */
  state: string;
  runYaml: string;
  restartLog: string;
  outputLog: string;
  /** The sentinels overnight decides from (records). */
  done: string;
  failed: string;
  pause: string;
  /** DONE and FAILED in the run's directory: views for people, written by overnight, never read. */
  doneView: string;
  failedView: string;
  session: string;
  prompt: string;
  /** The launch environment for the wrapper: outside the workspace, which the agent can read. */
  agentEnv: string;
  events: string;
  /** run.yaml's JSON twin, valid while run.yaml is unchanged. */
  specCache: string;
  /** The sessions read from output.log so far, and the byte offset they cover (derived, rebuildable). */
  streamIndex: string;
  /** When a session's silence was first seen: `<session> <ISO time>`. */
  staleSince: string;
  /** Present when that session was stopped as hung. */
  hungFile: (n: number) => string;
  /** When a backoff timer is armed to wake the next pass. */
  wake: string;
  /** The timer armed for the run's end time (or its synthesis's deadline), so no schedule is needed. */
  endWake: string;
  /** The watch of an agent whose wrapper is gone: a pass when that agent ends. */
  agentWatch: string;
  /** The status summary written once a finished run is verified free of agents. */
  final: string;
  /** Byte offset of events.jsonl up to which transitions were queued for notification. */
  notifyOffset: string;
  /** A follow-up's record of what it took over from the run it continues (written once). */
  continuation: string;
  /** Which run continues this one: the link the dashboard reads (`{"id","at","head"?}`). */
  continuedBy: string;
  /** The report of the run a follow-up continues. */
  previousReport: string;
  pidFile: (n: number) => string;
  /** The session's wrapper, `<pid> <start time>`, written by the wrapper itself as it starts. */
  wrapperFile: (n: number) => string;
  /** A detached run's wrapper: `<pid> <start time>` of the current session's, and its own output. */
  wrapperPid: string;
  wrapperLog: string;
  exitFile: (n: number) => string;
}

/**
 * The three files that say a run is over and verified free of agents, without building the rest:
 * a pass over a thousand finished runs checks only these.
 */
export function finishedFiles(runsRoot: string, id: string): { final: string; done: string; failed: string } {
  const state = recordsDir(runsRoot, id);
  return { final: `${state}/final.json`, done: `${state}/DONE`, failed: `${state}/FAILED` };
}

/** The directory of every run's records under a runs root (or an archive). */
export function recordsRoot(runsRoot: string): string {
  return `${runsRoot}/.overnight`;
}

export function recordsDir(runsRoot: string, id: string): string {
  return `${runsRoot}/.overnight/${id}`;
}

export function runPaths(runsRoot: string, id: string): RunPaths {
  const workspace = join(runsRoot, id);
  const state = recordsDir(dirname(workspace), id);
  // Plain concatenation after one join: a pass builds these for every one of a thousand runs.
  const w = (name: string) => `${workspace}/${name}`;
  const st = (name: string) => `${state}/${name}`;
  const finished = finishedFiles(runsRoot, id);
  return {
    workspace,
    claudeMd: w('CLAUDE.md'),
    questions: w('questions.md'),
    findings: w('findings'),
    report: w('REPORT.md'),
    state,
    runYaml: st('run.yaml'),
    restartLog: st('restart.log'),
    outputLog: st('output.log'),
    done: finished.done,
    failed: finished.failed,
    pause: st('PAUSE'),
    doneView: w('DONE'),
    failedView: w('FAILED'),
    session: st('session.json'),
    prompt: st('prompt.md'),
    agentEnv: `${dirname(workspace)}/.agent-env/${id}.env`,
    events: st('events.jsonl'),
    specCache: st('spec.json'),
    streamIndex: st('stream-index.json'),
    wake: st('wake-at'),
    endWake: st('wake-end'),
    agentWatch: st('watch-agent'),
    staleSince: st('stale-since'),
    hungFile: (n) => st(`hung-${n}`),
    final: finished.final,
    notifyOffset: st('notify-offset'),
    continuation: st('continuation.json'),
    continuedBy: st('continued-by'),
    previousReport: w('previous/REPORT.md'),
    pidFile: (n) => st(`agent-${n}.pid`),
    wrapperFile: (n) => st(`wrapper-${n}.pid`),
    wrapperPid: st('wrapper.pid'),
    wrapperLog: st('wrapper.log'),
    exitFile: (n) => st(`agent-${n}.exit`),
  };
}

export interface RootPaths {
  lock: string;
  passRequested: string;
  /** One empty file per run whose agent has just ended: the pass holding the lock serves it next. */
  runRequests: string;
  heartbeat: string;
  /** Written by `schedule install`: which backend runs the passes, and how often. */
  schedule: string;
  pauseAll: string;
  /** One empty file per run a pass must look at: every run not yet verified finished. */
  live: string;
  /** One JSON line per run verified finished, in that order (see core/run/run-index.ts). */
  finished: string;
  /** Notifications on their way: one file per transition and target, outside every workspace. */
  notify: string;
  /** Finished runs moved out of the dashboard and of every pass: `archive/<run id>/`. */
  archive: string;
  /** The worktrees of repository runs, `worktrees/<run id>/`: beside the runs, never inside one. */
  worktrees: string;
}

export function rootPaths(runsRoot: string): RootPaths {
  return {
    lock: join(runsRoot, '.reconcile.lock'),
    passRequested: join(runsRoot, '.pass-requested'),
    runRequests: join(runsRoot, '.pass-requests'),
    heartbeat: join(runsRoot, '.heartbeat.json'),
    schedule: join(runsRoot, '.schedule.json'),
    pauseAll: join(runsRoot, 'PAUSE'),
    live: join(runsRoot, '.live'),
    finished: join(runsRoot, '.finished.jsonl'),
    notify: join(runsRoot, '.notify'),
    archive: join(runsRoot, 'archive'),
    worktrees: join(runsRoot, 'worktrees'),
  };
}

/** Where the agent works: the worktree of a repository run, else the run's own directory. */
export function agentCwd(
  spec: { repo: { worktree: string; subdir?: string } | null },
  paths: RunPaths,
): string {
  if (!spec.repo) return paths.workspace;
  return spec.repo.subdir ? `${spec.repo.worktree}/${spec.repo.subdir}` : spec.repo.worktree;
}
