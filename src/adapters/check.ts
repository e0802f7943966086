import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { agentCwd, type RunPaths } from '../core/run/paths.js';
import { parsePidRecord } from '../core/run/records.js';
import type { RunSpec } from '../core/run/types.js';
import { outputLines } from '../core/verify/lines.js';
import {
  CHECK_LOG_MAX,
  checkFile,
  checkState,
  parseCheck,
  parseCheckExit,
  serializeCheck,
} from '../core/verify/records.js';
import {
  CHECK_STEPS,
  type CheckStep,
  type ObservedCheck,
  type ObservedChecks,
} from '../core/verify/types.js';
import { stepCounts, stepTests } from './check-counts.js';
import type { Delivered } from './deliver.js';
import { exists, readHead, readText, writeFileAtomic } from './files.js';
import { selfCommand } from './install.js';
import { isAlive, signalGroup } from './processes.js';
import { checkLaunch, type CheckLaunch } from './sandbox.js';
import { readTail } from './store.js';

// The check runner: the run's check command started detached in a process group of its own
// through a small sh wrapper (src/wrapper/check.sh), observed like a session from its records, and
// killed as a whole at verify_timeout. Separate from the agent's sessions: no tmux, no backend.

/** The check's wrapper in this install, made when a check starts (a pass observes, rarely starts). */
const checkWrapper = () => fileURLToPath(new URL('../src/wrapper/check.sh', import.meta.url));

/** Output read back for messages (its counts come from check-counts.ts). */
const TAIL_BYTES = 64 * 1024;
const TAIL_LINES = 15;

/**
 * Starts a check step: its record first (a pass that dies after this leaves a step that is seen
 * lost and started again), then the wrapper, detached. An earlier try's process group is killed
 * first: a wrapper killed alone leaves its command running.
 */
export async function startCheck(
  spec: RunSpec,
  paths: RunPaths,
  step: CheckStep,
  now: Date,
  tries: number,
  delivered: Delivered = {},
  launch: CheckLaunch | null = null,
): Promise<void> {
  if (!spec.verify && !launch) throw new Error('the run has no check');
  const file = (ext: Parameters<typeof checkFile>[2]) => checkFile(paths.state, step, ext);
  // A wrapper killed alone leaves its command and its watchdog behind: neither may outlive it.
  killGroup(readHead(file('group'), 32));
  killGroup(readHead(file('watchdog'), 32));
  const old = parsePidRecord(readText(file('pid')) ?? '');
  if (old && (await isAlive(old.pid, old.startTime))) signalGroup(old.pid, 'SIGKILL');
  for (const ext of [
    'pid',
    'exit',
    'timeout',
    'log',
    'group',
    'watchdog',
    'junit',
    'counts',
    'tests',
  ] as const)
    rmSync(file(ext), { force: true });
  // The claim the wrapper and its watchdog race for (an empty directory of overnight's records).
  rmSync(file('end'), { recursive: true, force: true });
  const run = launch ?? checkLaunch(spec, paths, spec.verify?.command ?? '');
  writeFileAtomic(file('json'), serializeCheck({ step, startedAt: now, tries, ...delivered }));
  const { node, cli } = selfCommand();
  const argv = [
    checkWrapper(),
    paths.state,
    step,
    agentCwd(spec, paths),
    String(CHECK_LOG_MAX),
    String(Math.ceil(step === 'review' ? (spec.review?.budget ?? 600) : (spec.verify?.timeout ?? 600))),
    step === 'review' ? '' : (spec.verify?.junit ?? ''),
    node,
    cli,
    run.mode,
    run.input ?? '',
    '--',
    ...run.argv,
  ];
  const child = spawn('/bin/sh', argv, { detached: true, stdio: 'ignore', cwd: '/' });
  child.unref();
}

/** Kills a step at verify_timeout: marked first (its end is then read as the timeout), then its group. */
export async function stopCheck(paths: RunPaths, step: CheckStep, now: Date): Promise<void> {
  writeFileAtomic(checkFile(paths.state, step, 'timeout'), `${now.toISOString()}\n`);
  // The command's own group (the wrapper gives it one), then the wrapper's.
  killGroup(readHead(checkFile(paths.state, step, 'group'), 32));
  killGroup(readHead(checkFile(paths.state, step, 'watchdog'), 32));
  const pid = parsePidRecord(readText(checkFile(paths.state, step, 'pid')) ?? '');
  if (!pid || !(await isAlive(pid.pid, pid.startTime))) return;
  signalGroup(pid.pid, 'SIGTERM');
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && (await isAlive(pid.pid, pid.startTime)))
    await new Promise((r) => setTimeout(r, 100));
  signalGroup(pid.pid, 'SIGKILL');
}

export async function observeCheck(
  paths: RunPaths,
  step: CheckStep,
  now: Date,
): Promise<ObservedCheck | null> {
  const file = (ext: Parameters<typeof checkFile>[2]) => checkFile(paths.state, step, ext);
  const record = parseCheck(readHead(file('json'), 64 * 1024) ?? '');
  if (!record) return null;
  const pid = parsePidRecord(readHead(file('pid'), 512) ?? '');
  const alive = pid ? await isAlive(pid.pid, pid.startTime) : false;
  const exitText = readHead(file('exit'), 128) ?? '';
  const exit = parseCheckExit(exitText);
  const timedOut = exists(file('timeout'));
  const state = checkState(
    record,
    { alive, pidRecorded: pid !== null, exit: exit?.code ?? null, timedOut },
    now,
  );
  const ended = state === 'exited' || state === 'timed-out' || state === 'lost';
  const output = ended ? readTail(file('log'), TAIL_BYTES) : '';
  return {
    ...record,
    state,
    exit,
    counts: state === 'exited' && step !== 'review' ? stepCounts(paths, step, exitText.trim()) : null,
    tail: outputLines(output.trimEnd()).slice(-TAIL_LINES).join('\n'),
  };
}

/**
 * Every step the run has records of. Once the night's last step has ended, the tests by name of it
 * and of the baseline come too: only then is every test accounted for.
 */
export async function observeChecks(paths: RunPaths, now: Date): Promise<ObservedChecks> {
  const out: ObservedChecks = {};
  for (const step of CHECK_STEPS) {
    if (step === 'review') continue;
    const c = await observeCheck(paths, step, now);
    if (c) out[step] = c;
  }
  const last = out.recheck ? 'recheck' : out.final ? 'final' : null;
  if (last && out[last]?.counts)
    for (const step of ['baseline', last] as const) {
      const c = out[step];
      const exit = readHead(checkFile(paths.state, step, 'exit'), 128)?.trim() ?? '';
      if (c?.counts) c.counts = { ...c.counts, tests: stepTests(paths, step, exit) };
    }
  return out;
}

/** The output file of a step (in overnight's records). */
export function checkOutput(paths: RunPaths, step: CheckStep): string {
  return checkFile(paths.state, step, 'log');
}

/**
 * What the wrapper recorded to end the command (or its watchdog), killed: `group <n>` a process
 * group, `process <n>` one process (bubblewrap, whose namespace dies with it; the watchdog). A bare
 * number, from wrappers before these words, was a group.
 */
function killGroup(text: string | null): void {
  const m = /^(?:(group|process) )?(\d{1,10})$/.exec((text ?? '').trim());
  const n = Number(m?.[2]);
  if (!m || !Number.isInteger(n) || n <= 1) return;
  try {
    process.kill(m[1] === 'process' ? n : -n, 'SIGKILL');
  } catch {
    // no member left
  }
}
