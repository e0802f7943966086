import { basename } from 'node:path';

import type { RunPaths } from '../core/run/paths.js';
import { selfCommand } from './install.js';
import { armShell } from './wake-timer.js';

// An agent whose wrapper is gone (killed) still works, but nobody records its end or starts the
// pass that resumes the run: without this, the next scheduled pass does (minutes with cron). A
// detached shell looks twice a second whether that agent (pid and start time) still runs, and
// becomes a pass for the run when it does not. Like the wake timers it is recorded, cancelled when
// the run ends, and leaves by itself within half a second of the run's DONE or FAILED.

/**
 * `$0` pid, `$1` start time (field 22 of /proc/<pid>/stat, as the wrapper records it), `$2` node,
 * `$3` the CLI, `$4` the run's records, `$5` its id. Without /proc (macOS), `kill -0` answers.
 * A zombie (ended, not reaped yet) is no agent.
 */
const WATCH_SCRIPT =
  'set -f; pid=$0 start=$1 node=$2 cli=$3 records=$4 id=$5; ' +
  'while [ ! -e "$records/DONE" ] && [ ! -e "$records/FAILED" ]; do ' +
  'alive=; if [ -d /proc/self ]; then line=; read -r line 2> /dev/null < "/proc/$pid/stat"; ' +
  "set -- ${line##*') '}; " +
  'if [ $# -ge 20 ] && [ "$1" != Z ] && [ "$1" != X ]; then shift 19; [ "$1" = "$start" ] && alive=1; fi; ' +
  'elif kill -0 "$pid" 2> /dev/null; then alive=1; fi; ' +
  '[ -n "$alive" ] || exec "$node" "$cli" reconcile --retry-lock 5000 --for-run "$id"; ' +
  'sleep 0.5 2> /dev/null || sleep 1; done';

export function watchArgs(
  agent: { pid: number; startTime: string },
  self: { node: string; cli: string },
  records: string,
): string[] {
  return [
    '-c',
    WATCH_SCRIPT,
    String(agent.pid),
    agent.startTime,
    self.node,
    self.cli,
    records,
    basename(records),
  ];
}

/** Watches the agent (once per agent: a watch of it that still runs is left alone). */
export function watchAgent(
  paths: RunPaths,
  agent: { pid: number; startTime: string },
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const key = `agent:${agent.pid}:${agent.startTime.replace(/\s+/g, '_')}`;
  return armShell(paths.agentWatch, key, () => watchArgs(agent, selfCommand(), paths.state), paths, env);
}
