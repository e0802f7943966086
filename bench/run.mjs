// `npm run bench`: how much a reconcile pass and `status --json` cost over 1,000 finished and
// 20 live runs, against a bare Node start, and how much memory each live run's wrapper holds.
// Figures only, never assertions: the exit status is 0 whether or not the goals are met.
//
//   node bench/run.mjs [--reps 20] [--warmups 2] [--finished 1000] [--live 20] [--crashes 10] [--keep]
//
// The live agents stream stream-json into their logs while the timing runs (3 KB/s each, one at
// 1 MB/s), so every timed pass reads output that arrived since the last one, as a real pass does.
// It also times "crash → agent running again": kill -9 an agent (which keeps a transcript, so the
// next session is a real `--resume`, with backoff as configured), until the next one runs; and
// one pass after "a reboot": every live run's wrapper and agent gone at once.
//
// Two more cases, each in a sandbox of its own: big logs (4 live runs with 150 MB output.logs:
// status --json, a pass, and the pass that resumes one of them after kill -9) and many runs
// (10,000 finished runs and 5 live ones: a pass and status). Every pass's peak memory is shown.
//   --cases standard,big-log,many-runs   which to run (all by default)
//   --big-mb 150 --big-runs 4 --many 10000
//
// --keep leaves the sandbox (runs, agents, tmux server) in place for profiling and prints how
// to use it and how to remove it.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { streamEnv } from './agent.mjs';
import { measureBigLogs } from './big-log.mjs';
import { measureManyRuns } from './many-runs.mjs';
import { commandOf, mb, memoryOf, peakRssMb, renderTable, timeInterleaved } from './measure.mjs';
import { measureReboot } from './reboot.mjs';
import { measureRecovery } from './recovery.mjs';
import { bigLogLines, fmtMb, manyRunsLines } from './report.mjs';
import {
  cleanup,
  CLI,
  createSandbox,
  isRunning,
  launchLive,
  makeFinishedRuns,
  overnightViaFile,
  tmux,
  waitQuiet,
} from './sandbox.mjs';

const { values: opts } = parseArgs({
  options: {
    reps: { type: 'string', default: '20' },
    warmups: { type: 'string', default: '2' },
    finished: { type: 'string', default: '1000' },
    live: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
    crashes: { type: 'string', default: '10' },
    cases: { type: 'string', default: 'standard,big-log,many-runs' },
    'big-mb': { type: 'string', default: '150' },
    'big-runs': { type: 'string', default: '4' },
    many: { type: 'string', default: '10000' },
  },
});
const count = (name, min) => {
  const n = Number(opts[name]);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`bench: --${name} must be an integer ≥ ${min}, not ${JSON.stringify(opts[name])}\n`);
    process.exit(2);
  }
  return n;
};
const REPS = count('reps', 1);
const WARMUPS = count('warmups', 0);
const FINISHED = count('finished', 0);
const LIVE = count('live', 1);
const CRASHES = count('crashes', 0);
const BIG_MB = count('big-mb', 1);
const BIG_RUNS = count('big-runs', 2);
const MANY = count('many', 0);
const CASES = opts.cases.split(',').map((c) => c.trim());
for (const c of CASES) {
  if (!['standard', 'big-log', 'many-runs'].includes(c)) {
    process.stderr.write(`bench: --cases takes standard, big-log and many-runs, not ${JSON.stringify(c)}\n`);
    process.exit(2);
  }
}

const log = (line) => process.stderr.write(`bench: ${line}\n`);
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const sb = createSandbox();
const agentPids = [];
let cleaning = null;
const cleanupOnce = () => (cleaning ??= cleanup(sb, agentPids, log));
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`${sig}: cleaning up`);
    cleanupOnce().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (err) {
  log(`failed: ${err.stack ?? err.message}`);
  process.exitCode = 1;
} finally {
  if (opts.keep) keptMessage();
  else await cleanupOnce();
}

async function main() {
  log(`node ${process.version}, ${cpus().length} CPUs, load ${loadText()}`);
  const lines = CASES.includes('standard') ? await standard() : [];
  if (CASES.includes('big-log')) {
    const r = await measureBigLogs({ runs: BIG_RUNS, mb: BIG_MB, reps: REPS, warmups: WARMUPS }, log);
    lines.push('', ...bigLogLines(r, { runs: BIG_RUNS, mb: BIG_MB, reps: REPS }));
  }
  if (CASES.includes('many-runs')) {
    const r = await measureManyRuns({ finished: MANY, live: 5, reps: REPS, warmups: WARMUPS }, log);
    lines.push('', ...manyRunsLines(r, { reps: REPS }));
  }
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
}

async function standard() {
  log(`standard case: sandbox ${sb.dir}`);

  let t = Date.now();
  const finished = await makeFinishedRuns(sb, FINISHED);
  agentPids.push(finished.templateAgentPid);
  log(`${FINISHED} finished runs (one launched and stopped, then copied) in ${seconds(t)}`);

  t = Date.now();
  const live = [];
  for (let i = 0; i < LIVE; i++) {
    // Every live agent's log grows as a working agent's does: a few KB/s, and one at 1 MB/s.
    const run = await launchLive(sb, `live-${String(i).padStart(2, '0')}`, streamEnv(i === 0 ? 1024 : 3));
    agentPids.push(run.agentPid);
    live.push(run);
  }
  await waitQuiet(sb);
  log(`${LIVE} live runs launched in ${seconds(t)}`);
  const dead = live.filter((r) => !isRunning(r.agentPid));
  if (dead.length > 0)
    throw new Error(`agents not running before timing: ${dead.map((r) => r.id).join(', ')}`);

  const full = overnightViaFile(sb, ['status', '--json']);
  const rows = JSON.parse(full);
  const states = tally(rows.map((r) => r.state));
  log(
    `status --json sees ${rows.length} runs: ${Object.entries(states)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}`,
  );

  // The timed commands. Reconcile must be a steady-state pass: it acts on nothing.
  const node = process.execPath;
  const commands = [
    { name: 'baseline', argv: [node, '-e', '0'] },
    { name: 'reconcile', argv: [node, CLI, 'reconcile'] },
    { name: 'status', argv: [node, CLI, 'status', '--json'] },
    // The morning dashboard: every live run and the finished ones of its window (none here).
    { name: 'dashboard', argv: [node, CLI, 'status'] },
  ];
  const notes = new Set();
  const cut = [];
  const check = (name, r) => {
    if (r.status !== 0) throw new Error(`${name} exited ${r.status ?? 'by a signal'}: ${r.stderr.trim()}`);
    if (name === 'reconcile' && r.stdout.trim())
      notes.add(`reconcile acted (not a steady-state pass): ${r.stdout.trim().split('\n')[0]}`);
    if (name === 'status' && r.stdout.length !== full.length) cut.push(r.stdout.length);
    if (name !== 'baseline' && r.stderr.trim())
      notes.add(`${name} wrote to stderr: ${r.stderr.trim().split('\n')[0]}`);
  };
  t = Date.now();
  const loadBefore = loadavg()[0];
  const timing = timeInterleaved(commands, sb.env, { reps: REPS, warmups: WARMUPS, check });
  const loadAfter = loadavg()[0];
  log(`timed ${REPS}+${WARMUPS} rounds in ${seconds(t)}`);

  if (cut.length > 0) {
    notes.add(
      `status --json into a pipe printed only ${Math.min(...cut)}–${Math.max(...cut)} of its ${full.length} bytes in ${cut.length} of ${REPS + WARMUPS} runs ` +
        '(the CLI exits before a pipe drains), so those times lack part of the write',
    );
  }
  const stillAlive = live.filter((r) => isRunning(r.agentPid)).length;
  if (stillAlive !== LIVE) notes.add(`only ${stillAlive} of ${LIVE} agents were alive after timing`);

  const memory = measureMemory(live);

  const lines = [
    'standard: ' + `${FINISHED} finished runs and ${LIVE} live ones`,
    ...renderTable({
      timing,
      ...memory,
      live: LIVE,
      finished: FINISHED,
      reps: REPS,
      warmups: WARMUPS,
    }),
  ];
  if (CRASHES > 0) {
    t = Date.now();
    const r = await measureRecovery(sb, CRASHES, agentPids);
    log(`${CRASHES} crashes recovered in ${seconds(t)}`);
    const ok = r.median <= 3000 ? '✓' : '✗';
    lines.push(
      `crash → agent running again (kill -9, no scheduler, --resume with its transcript)   median ${(r.median / 1000).toFixed(2)} s, p90 ${(r.p90 / 1000).toFixed(2)} s over ${CRASHES} trials   goal ≤ 3 s  ${ok}`,
    );
    if (r.fresh > 0) notes.add(`${r.fresh} of ${CRASHES} restarts were not a --resume (a fresh session)`);
    if (r.untold > 0)
      notes.add(
        `${r.untold} of ${CRASHES} restarted agents were gone before their command line was read; ` +
          `restart.log records ${r.resumes} resumes`,
      );
  }
  t = Date.now();
  const reboot = await measureReboot(sb, agentPids);
  log(`reboot: ${reboot.runs} runs lost at once, one pass in ${seconds(t)}`);
  lines.push(
    `after a reboot (tmux server and agents gone, no exit records)   one pass resumed ${reboot.resumed} of ${reboot.runs} runs in ${(reboot.ms / 1000).toFixed(2)} s`,
  );
  const passRss = peakRssMb([node, CLI, 'reconcile'], sb.env);
  lines.push(`reconcile's peak RSS (the steady pass): ${fmtMb(passRss)}`);
  lines.push(...extraLines(timing, loadBefore, loadAfter));
  for (const n of notes) lines.push(`note: ${n}`);
  return lines;
}

function keptMessage() {
  const e = sb.env;
  log('sandbox kept; to use it:');
  log(
    `  export HOME=${e.HOME} OVERNIGHT_HOME=${e.OVERNIGHT_HOME} TMUX_TMPDIR=${e.TMUX_TMPDIR} OVERNIGHT_CLAUDE=${e.OVERNIGHT_CLAUDE}; unset TMUX`,
  );
  log(
    `  to remove it (with those variables set): node ${CLI} stop --all; tmux -L overnight kill-server; rm -rf ${sb.dir}`,
  );
}

/** Each live run's wrapper is its tmux session's pane process (`sh agent.sh ...`). */
function measureMemory(live) {
  const wanted = new Map(live.map((r) => [r.session, r]));
  const wrappers = [];
  for (const line of tmux(sb, ['list-panes', '-a', '-F', '#{session_name} #{pane_pid}']).split('\n')) {
    const [session, pid] = line.trim().split(' ');
    if (!wanted.has(session)) continue;
    const cmd = commandOf(Number(pid));
    if (!cmd || !cmd.includes('agent.sh')) {
      log(`pane of ${session} (pid ${pid}) is not the wrapper: ${cmd}`);
      continue;
    }
    const m = memoryOf(Number(pid));
    if (m.rssKb !== null) wrappers.push(m);
  }
  const rss = wrappers.map((w) => mb(w.rssKb));
  const pss = wrappers
    .map((w) => w.pssKb)
    .filter((x) => x !== null)
    .map(mb);
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const wrapper = {
    count: wrappers.length,
    meanMb: mean(rss),
    maxMb: rss.length ? Math.max(...rss) : null,
    pssMeanMb: mean(pss),
  };

  let tmuxServer = null;
  const serverPid = Number(tmux(sb, ['display-message', '-p', '#{pid}']).trim());
  const server = memoryOf(serverPid);
  if (server.rssKb !== null) tmuxServer = { pid: serverPid, rssMb: mb(server.rssKb) };
  return { wrapper, tmuxServer };
}

function extraLines(timing, loadBefore, loadAfter) {
  const lines = [];
  const base = timing.baseline.median;
  for (const name of ['reconcile', 'status', 'dashboard']) {
    lines.push(
      `${name}: ${(timing[name].median - base).toFixed(1)} ms beyond a bare Node start (median); min ${timing[name].min.toFixed(1)} ms, max ${timing[name].max.toFixed(1)} ms`,
    );
  }
  try {
    const beat = JSON.parse(readFileSync(join(sb.runs, '.heartbeat.json'), 'utf8'));
    lines.push(
      `reconcile's heartbeat: the last pass took ${beat.durationMs} ms inside the process over ${beat.runs} runs, ${beat.actions} actions`,
    );
  } catch {
    // no heartbeat: nothing to add
  }
  const cores = cpus().length;
  const noisy = Math.max(loadBefore, loadAfter) > cores * 0.5;
  lines.push(
    `load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after timing on ${cores} CPUs${noisy ? ': the machine was busy, figures may be noisy' : ''}`,
  );
  return lines;
}

function tally(xs) {
  const out = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

function loadText() {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}
