// Processes of a run that should be gone, found in /proc by what they are: its agents and their
// children (the fake's log directory in their environment), its wrappers (agent.sh with the run's
// records on the command line), its wake timer (the pid and start time its record names).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ofWorld, procStart } from './world.mjs';

/**
 * @typedef {{ pid: number, cmd: string, env: string[] }} Proc
 * @typedef {import('./summary.mjs').Orphan['kind']} Kind
 */

/** Every live process of the world (ofWorld), with cmdline and environment. */
export function scanWorld(world) {
  /** @type {Proc[]} */
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (!ofWorld(world, env) || !procStart(Number(name))) continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      found.push({ pid: Number(name), cmd, env });
    } catch {
      // gone
    }
  }
  return found;
}

/** The wake timer the run's record names, if that process still lives. */
function wakeTimerPid(world, id) {
  try {
    const [, pid, start] = readFileSync(join(world.runs, '.overnight', id, 'wake-at'), 'utf8')
      .trim()
      .split(' ');
    return pid && start && procStart(Number(pid)) === start ? Number(pid) : null;
  } catch {
    return null;
  }
}

/** tmux (its server, or a client), by its command line. */
export const isTmux = (cmd) => /^(\S*\/)?tmux /.test(cmd);

/** A wake timer's shell (its script names the pass it becomes), recorded or not. */
const isTimerShell = (cmd) => cmd.startsWith('/bin/sh -c ') && cmd.includes('reconcile --retry-lock');

/**
 * What of a run is still alive after `graceMs` (present at both looks, same pid): a timer's shell
 * checks each second whether its run has ended and goes by itself; that is not an orphan.
 * @returns {Promise<Array<{ pid: number, kind: Kind, cmd: string }>>}
 */
export async function aliveAfter(world, run, graceMs = 2000) {
  const first = runProcesses(world, run, scanWorld(world));
  if (first.length === 0) return [];
  await new Promise((r) => setTimeout(r, graceMs));
  const again = new Set(runProcesses(world, run, scanWorld(world)).map((p) => p.pid));
  return first.filter((p) => again.has(p.pid));
}

/**
 * What of a run is alive, by kind. `procs` from scanWorld.
 * @param {Proc[]} procs
 * @returns {Array<{ pid: number, kind: Kind, cmd: string }>}
 */
export function runProcesses(world, run, procs) {
  const logMarker = `FAKE_CLAUDE_LOG=${run.logDir}`;
  const records = `/.overnight/${run.id}`;
  const timer = wakeTimerPid(world, run.id);
  /** @type {Array<{ pid: number, kind: Kind, cmd: string }>} */
  const out = [];
  for (const p of procs) {
    // tmux's server keeps the command line of the session that started it (agent.sh included).
    if (isTmux(p.cmd)) continue;
    // A timer's shell is known by the records its command line names: it inherits the
    // environment of the pass that armed it, which may be another run's wrapper's.
    if (isTimerShell(p.cmd)) {
      if (`${p.cmd} `.includes(`${records} `)) out.push({ pid: p.pid, kind: 'timer', cmd: p.cmd });
    } else if (p.pid === timer) out.push({ pid: p.pid, kind: 'timer', cmd: p.cmd });
    else if (p.cmd.includes('agent.sh') && p.cmd.includes(records))
      out.push({ pid: p.pid, kind: 'wrapper', cmd: p.cmd });
    else if (p.env.includes(logMarker) && !/overnight\.js reconcile\b/.test(p.cmd))
      out.push({ pid: p.pid, kind: p.cmd.includes('fake-claude') ? 'agent' : 'child', cmd: p.cmd });
  }
  return out;
}

/**
 * What is left of the world once every run is over and passes had time to end: agents, wrappers,
 * their children and wake timers (a `sleep` before a pass). Passes still running and tmux's server
 * are not counted (the fake's child is `sleep 600`; a timer's sleep is shorter).
 * @param {Proc[]} procs
 * @returns {Array<{ pid: number, kind: Kind, cmd: string }>}
 */
export function leftovers(procs) {
  return procs
    .filter((p) => !/overnight\.js reconcile\b/.test(p.cmd) && !isTmux(p.cmd))
    .map((p) => ({
      pid: p.pid,
      cmd: p.cmd,
      kind: p.cmd.includes('fake-claude')
        ? 'agent'
        : p.cmd.includes('agent.sh')
          ? 'wrapper'
          : /reconcile --retry-lock/.test(p.cmd) || (/^sleep /.test(p.cmd) && p.cmd !== 'sleep 600 ')
            ? 'timer'
            : p.env.some((e) => e.startsWith('FAKE_CLAUDE_LOG='))
              ? 'child'
              : 'other',
    }));
}
