import { join } from 'node:path';

// Every file of a run, derived from the runs root and the run id. `node:path` is pure string work.

export interface RunPaths {
  workspace: string;
  claudeMd: string;
  questions: string;
  findings: string;
  report: string;
  runYaml: string;
  restartLog: string;
  outputLog: string;
  done: string;
  failed: string;
  pause: string;
  /** Supervisor-internal files. */
  state: string;
  session: string;
  prompt: string;
  agentEnv: string;
  events: string;
  /** When a backoff timer is armed to wake the next pass. */
  wake: string;
  /** The status summary written once a finished run is verified free of agents. */
  final: string;
  pidFile: (n: number) => string;
  exitFile: (n: number) => string;
}

export function runPaths(runsRoot: string, id: string): RunPaths {
  const workspace = join(runsRoot, id);
  const state = join(workspace, '.overnight');
  return {
    workspace,
    claudeMd: join(workspace, 'CLAUDE.md'),
    questions: join(workspace, 'questions.md'),
    findings: join(workspace, 'findings'),
    report: join(workspace, 'REPORT.md'),
    runYaml: join(workspace, 'run.yaml'),
    restartLog: join(workspace, 'restart.log'),
    outputLog: join(workspace, 'output.log'),
    done: join(workspace, 'DONE'),
    failed: join(workspace, 'FAILED'),
    pause: join(workspace, 'PAUSE'),
    state,
    session: join(state, 'session.json'),
    prompt: join(state, 'prompt.md'),
    agentEnv: join(state, 'agent.env'),
    events: join(state, 'events.jsonl'),
    wake: join(state, 'wake-at'),
    final: join(state, 'final.json'),
    pidFile: (n) => join(state, `agent-${n}.pid`),
    exitFile: (n) => join(state, `agent-${n}.exit`),
  };
}

export interface RootPaths {
  lock: string;
  passRequested: string;
  heartbeat: string;
  pauseAll: string;
}

export function rootPaths(runsRoot: string): RootPaths {
  return {
    lock: join(runsRoot, '.reconcile.lock'),
    passRequested: join(runsRoot, '.pass-requested'),
    heartbeat: join(runsRoot, '.heartbeat.json'),
    pauseAll: join(runsRoot, 'PAUSE'),
  };
}
