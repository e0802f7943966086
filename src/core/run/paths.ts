import { dirname, join, sep } from 'node:path';

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
  /** The run's own temp directory (`<runs root>/.run-tmp/<run id>`), the only one its sandbox may write. */
  tmp: string;
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

/**
 * What join(runsRoot, name) puts before a plain name, and the dirname of that join: the same for
 * every run of a root, so worked out once a root rather than normalized again for each of them.
 */
let lastRoot: { of: string; prefix: string; parent: string } | null = null;
function rootOf(runsRoot: string): { prefix: string; parent: string } {
  if (lastRoot?.of !== runsRoot) {
    const probe = join(runsRoot, 'x');
    lastRoot = { of: runsRoot, prefix: probe.slice(0, -1), parent: dirname(probe) };
  }
  return lastRoot;
}

/** A name join() leaves as it is (one path segment): every run id. */
const isName = (id: string): boolean =>
  sep === '/' && id !== '' && id !== '.' && id !== '..' && !id.includes('/');

/**
 * A run's paths, each made when first asked for: status builds these for every one of a thousand
 * finished runs and reads five of them. Plain concatenation after one join.
 */
class LazyRunPaths implements RunPaths {
  readonly workspace: string;
  readonly state: string;
  readonly #root: string;
  readonly #id: string;
  constructor(runsRoot: string, id: string) {
    const root = rootOf(runsRoot);
    if (isName(id)) {
      this.workspace = root.prefix + id;
      this.state = `${root.parent}/.overnight/${id}`;
    } else {
      this.workspace = join(runsRoot, id);
      this.state = recordsDir(dirname(this.workspace), id);
    }
    this.#root = runsRoot;
    this.#id = id;
  }
  get claudeMd() {
    return `${this.workspace}/CLAUDE.md`;
  }
  get questions() {
    return `${this.workspace}/questions.md`;
  }
  get findings() {
    return `${this.workspace}/findings`;
  }
  get report() {
    return `${this.workspace}/REPORT.md`;
  }
  get runYaml() {
    return `${this.state}/run.yaml`;
  }
  get restartLog() {
    return `${this.state}/restart.log`;
  }
  get outputLog() {
    return `${this.state}/output.log`;
  }
  get done() {
    return finishedFiles(this.#root, this.#id).done;
  }
  get failed() {
    return finishedFiles(this.#root, this.#id).failed;
  }
  get pause() {
    return `${this.state}/PAUSE`;
  }
  get doneView() {
    return `${this.workspace}/DONE`;
  }
  get failedView() {
    return `${this.workspace}/FAILED`;
  }
  get session() {
    return `${this.state}/session.json`;
  }
  get prompt() {
    return `${this.state}/prompt.md`;
  }
  get agentEnv() {
    return `${dirname(this.workspace)}/.agent-env/${this.#id}.env`;
  }
  get tmp() {
    return `${dirname(this.workspace)}/.run-tmp/${this.#id}`;
  }
  get events() {
    return `${this.state}/events.jsonl`;
  }
  get specCache() {
    return `${this.state}/spec.json`;
  }
  get streamIndex() {
    return `${this.state}/stream-index.json`;
  }
  get wake() {
    return `${this.state}/wake-at`;
  }
  get endWake() {
    return `${this.state}/wake-end`;
  }
  get agentWatch() {
    return `${this.state}/watch-agent`;
  }
  get staleSince() {
    return `${this.state}/stale-since`;
  }
  get final() {
    return finishedFiles(this.#root, this.#id).final;
  }
  get notifyOffset() {
    return `${this.state}/notify-offset`;
  }
  get continuation() {
    return `${this.state}/continuation.json`;
  }
  get continuedBy() {
    return `${this.state}/continued-by`;
  }
  get previousReport() {
    return `${this.workspace}/previous/REPORT.md`;
  }
  get wrapperPid() {
    return `${this.state}/wrapper.pid`;
  }
  get wrapperLog() {
    return `${this.state}/wrapper.log`;
  }
  hungFile(n: number): string {
    return `${this.state}/hung-${n}`;
  }
  pidFile(n: number): string {
    return `${this.state}/agent-${n}.pid`;
  }
  wrapperFile(n: number): string {
    return `${this.state}/wrapper-${n}.pid`;
  }
  exitFile(n: number): string {
    return `${this.state}/agent-${n}.exit`;
  }
}

export function runPaths(runsRoot: string, id: string): RunPaths {
  return new LazyRunPaths(runsRoot, id);
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
  /** Touched when a pass last swept the root's own directories for temps (see adapters/temps.ts). */
  swept: string;
}

/** The last root's paths: a pass asks for them for every run (each run's PAUSE beside the root's). */
let lastRootPaths: { of: string; paths: RootPaths } | null = null;

export function rootPaths(runsRoot: string): RootPaths {
  if (lastRootPaths?.of === runsRoot) return lastRootPaths.paths;
  const paths = Object.freeze(makeRootPaths(runsRoot));
  lastRootPaths = { of: runsRoot, paths };
  return paths;
}

function makeRootPaths(runsRoot: string): RootPaths {
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
    swept: join(recordsRoot(runsRoot), '.swept'),
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
