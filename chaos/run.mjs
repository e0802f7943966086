// `npm run chaos`: many compressed nights at once, with a fake agent following random plans
// (crash, hang, usage limit, exit 0 without a result, out of memory, one refused login, bursts of
// large output, synthesis sessions that crash, hang or end without a report), while the harness
// kill -9s agents (each run's at least once), wrappers, the tmux server and reconcile passes
// mid-pass, stops runs (concurrently), pauses and resumes them, and fills the disk for a while (the
// runs root is a tmpfs when running as root). Each run gets a canary finding at launch.
//
//   node chaos/run.mjs [--runs 200] [--concurrency 24] [--night 40] [--seed 1] [--json] [--keep]
//     [--disk-every 40] [--stop-share 0.15] [--child-share 0.15] [--nights FILE]
//
// The night is measured from ground truth (judge.mjs): the fake agent's own records, /proc, the
// files on disk. --json prints one object (see summary.mjs): runNights, doneWithReport,
// duplicates, orphans, lost, wastedRestarts, resume, worked, late, findings, orphanKinds, faults,
// and missed (the goals not met). The figures against their goals go to stderr; the exit status
// is 1 when a goal is missed. Runs the harness stops on purpose end without a report by design:
// they are checked for orphans, canaries and findings but are not run-nights. --nights FILE
// appends every judged night to FILE, a JSON object a line, for a look at the figures afterwards.
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { judgeRun, RunAgents } from './judge.mjs';
import { Monkey } from './monkey.mjs';
import { options } from './options.mjs';
import { aliveAfter, leftovers, scanWorld } from './orphans.mjs';
import { planFor, random } from './plans.mjs';
import { explain, report } from './report.mjs';
import { createWorld, destroyWorld, overnight, SYNTHESIS_BUDGET_S } from './world.mjs';

const opts = options;
const { runs: RUNS, concurrency: CONCURRENCY, night: NIGHT, seed: SEED } = options;
const { diskEvery: DISK_EVERY, stopShare: STOP_SHARE, childShare: CHILD_SHARE } = options;
/** How long after its end time a run may take to end before the harness stops it (past the goal). */
const LATE_S = SYNTHESIS_BUDGET_S + 90;

const started = Date.now();
const log = (line) =>
  process.stderr.write(`chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s: ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const world = createWorld({ tmpfsMb: 768, backend: options.backend });
const rnd = random(SEED);
const monkey = new Monkey(world, rnd, log);
const active = new Map();
const judged = [];
const duplicatePairs = new Set();
/** @type {import('./summary.mjs').Orphan[]} */
const orphans = [];
const stops = new Set();
/** What the scheduled passes said, for the story of a run that went wrong. */
const schedulerLog = [];
let launched = 0;
let running = true;

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: cleaning up`);
    destroyWorld(world).finally(() => process.exit(130));
  });
}

try {
  log(
    `world ${world.dir}; runs root on ${world.tmpfs ? 'a tmpfs (the disk will be filled)' : 'the disk (not root: no disk filling)'}; ` +
      `${RUNS} runs, ${CONCURRENCY} at a time, ${NIGHT}s nights, seed ${SEED}`,
  );
  const loops = [schedule(), chaos(), diskFull(), watch()];
  await main();
  running = false;
  await Promise.all([...loops, ...monkey.pending, ...stops]);
  // Nothing of any run may outlive it: what is left once the last passes had time to end.
  await sleep(3000);
  for (const p of leftovers(scanWorld(world))) {
    log(`ORPHAN at the end: ${p.kind} ${p.pid}: ${p.cmd.slice(0, 160)}`);
    orphans.push({ ...p, when: 'after the end' });
  }
  if (opts.keep) writeFileSync(join(world.logs, 'scheduler.log'), schedulerLog.join('\n') + '\n');
  const ok = report({
    judged,
    orphans,
    duplicates: duplicatePairs.size,
    monkey,
    started,
    log,
    json: opts.json,
    canFillDisk: world.tmpfs && DISK_EVERY > 0,
    hasTmux: world.backend === 'tmux',
  });
  if (!ok) process.exitCode = 1;
} catch (err) {
  log(`failed: ${err.stack ?? err.message}`);
  process.exitCode = 1;
} finally {
  running = false;
  await destroyWorld(world, { keep: opts.keep });
}

async function main() {
  while (launched < RUNS || active.size > 0) {
    while (launched < RUNS && active.size < CONCURRENCY) await launch();
    for (const run of [...active.values()]) await check(run);
    await sleep(300);
  }
}

/** Launches the next run (tried again while the disk is full or the lock is busy). */
async function launch() {
  const i = launched++;
  const name = `chaos-${String(i).padStart(4, '0')}`;
  const logDir = join(world.logs, name);
  mkdirSync(logDir, { recursive: true });
  const behaviour = join(logDir, 'behaviour.json');
  // Each run's plan, stop and kill from a generator of its own: the same whatever the timing.
  const own = random(SEED * 100_003 + i);
  writeFileSync(behaviour, JSON.stringify(planFor(own, { childShare: CHILD_SHARE })));
  const stopIn = own() < STOP_SHARE ? own() * NIGHT * 1000 : null;
  const killIn = (0.15 + own() * 0.5) * NIGHT * 1000;
  const env = { FAKE_CLAUDE_BEHAVIOUR: behaviour, FAKE_CLAUDE_LOG: logDir };
  for (let attempt = 1; ; attempt++) {
    const r = await overnight(
      world,
      ['launch', '--json', '--duration', `${NIGHT}s`, '--name', name, `chaos ${name}`],
      env,
    );
    if (r.code === 0) {
      const { id, endsAt } = JSON.parse(r.stdout);
      const canary = { file: 'canary.md', text: `canary ${randomBytes(8).toString('hex')}\n` };
      await writeCanary(id, canary);
      const launchAt = new Date(endsAt).getTime() - NIGHT * 1000;
      const stopAt = stopIn === null ? null : launchAt + stopIn;
      active.set(id, {
        id,
        logDir,
        canary,
        launchAt,
        endsAt: new Date(endsAt).getTime(),
        // Every night loses its agent at least once, somewhere in its first two thirds.
        killAt: launchAt + killIn,
        stopAt,
        stopped: false,
        stopping: null,
        pauses: [],
        agents: new RunAgents(logDir),
      });
      return;
    }
    if (attempt >= 20) throw new Error(`launch of ${name} kept failing: ${r.stderr.trim()}`);
    await sleep(1000);
  }
}

/** The canary, written as soon as the run exists; a full disk is waited out. */
async function writeCanary(id, canary) {
  for (;;) {
    try {
      writeFileSync(join(world.runs, id, 'findings', canary.file), canary.text);
      return;
    } catch (err) {
      if (err.code !== 'ENOSPC') throw err;
      await sleep(200);
    }
  }
}

/** Stops a run as a person would, alongside other stops; then nothing of it may be alive. */
function stop(run) {
  run.stopped = true;
  const p = (async () => {
    // A person whose stop fails on a full disk (nothing can be recorded) tries again.
    let r = await overnight(world, ['stop', run.id]);
    for (let tries = 1; r.code !== 0 && /no space left/.test(r.stderr) && tries < 30; tries++) {
      await sleep(1000);
      r = await overnight(world, ['stop', run.id]);
    }
    monkey.counts.stops++;
    if (r.code !== 0) log(`stop ${run.id}: exit ${r.code}: ${r.stderr.trim()}`);
    for (const o of await aliveAfter(world, run)) {
      log(`ORPHAN after stop ${run.id}: ${o.kind} ${o.pid}: ${o.cmd.slice(0, 160)}`);
      orphans.push({ ...o, when: 'after stop' });
    }
  })();
  run.stopping = p;
  stops.add(p);
  p.finally(() => {
    stops.delete(p);
    run.stopping = null;
  });
}

async function check(run) {
  if (run.stopAt && !run.stopped && Date.now() >= run.stopAt) stop(run);
  if (run.stopping) return;
  const ws = join(world.runs, run.id);
  const records = join(world.runs, '.overnight', run.id);
  const ended = existsSync(join(records, 'DONE')) || existsSync(join(records, 'FAILED'));
  const settled = ended && !existsSync(join(world.runs, '.live', run.id));
  const late = Date.now() > run.endsAt + LATE_S * 1000;
  if (!settled && !late) return;
  const gaveUpAt = settled ? null : Date.now();
  if (!settled) {
    log(`${run.id}: not finished ${LATE_S}s after its end time; stopping it`);
    await overnight(world, ['stop', run.id]);
  }
  const { night, reason, wastedWhy } = judgeRun(world, run, monkey, gaveUpAt);
  monkey.counts.synthesisFailures += run.agents.synthesisFailures();
  for (const o of await aliveAfter(world, run)) {
    log(`ORPHAN after the end of ${run.id}: ${o.kind} ${o.pid}: ${o.cmd.slice(0, 160)}`);
    orphans.push({ ...o, when: 'after the end' });
  }
  if (!night.canaryIntact) log(`LOST canary of ${run.id}`);
  if (night.findings.intact < night.findings.written)
    log(`LOST findings of ${run.id}: ${night.findings.intact} of ${night.findings.written} intact`);
  for (const why of wastedWhy) log(`wasted restart in ${run.id}: ${why}`);
  if (!run.stopped && !(night.sentinel === 'DONE' && night.report)) {
    log(`${run.id}: ${night.sentinel ?? 'unfinished'} without a report: ${reason}`);
    explain(world, run.id, schedulerLog, log);
  }
  judged.push({ run, night });
  // What was judged, beside the fake's own records, for a look at a night gone wrong (--keep).
  if (opts.keep) writeFileSync(join(run.logDir, 'night.json'), JSON.stringify(night, null, 1));
  if (opts.nights) appendFileSync(opts.nights, `${JSON.stringify({ stopped: run.stopped, ...night })}\n`);
  active.delete(run.id);
  // Its files go (the tmpfs is small); what was judged stays.
  if (!opts.keep) rmSync(ws, { recursive: true, force: true });
  if (judged.length % 10 === 0) log(`${judged.length} of ${RUNS} runs judged`);
}

/** The schedule: a pass every two seconds, as cron would every few minutes. */
async function schedule() {
  while (running) {
    const t = Date.now();
    const r = await overnight(world, ['reconcile'], {}, 60_000);
    const took = ((Date.now() - t) / 1000).toFixed(1);
    const said = (r.stdout + r.stderr).trim();
    schedulerLog.push(`${new Date().toISOString()} exit ${r.code} in ${took}s${said ? `\n${said}` : ''}`);
    await sleep(2000);
  }
}

async function chaos() {
  while (running) {
    const inNight = [...active.values()].filter((r) => !r.stopped && Date.now() < r.endsAt - 3000);
    monkey.tick(inNight);
    await sleep(250);
  }
}

async function diskFull() {
  if (!world.tmpfs || DISK_EVERY === 0) return;
  while (running) {
    for (let waited = 0; running && waited < DISK_EVERY * 1000; waited += 500) await sleep(500);
    if (running) await monkey.fillDisk(2000 + rnd() * 3000);
  }
}

/** Two agents of one run alive at once, sampled; plus what the fake agents saw themselves. */
async function watch() {
  while (running) {
    for (const run of active.values()) {
      const alive = run.agents.alive();
      if (alive.length > 1) {
        const pair = alive.sort((a, b) => a - b).join('+');
        if (!duplicatePairs.has(`${run.id}:${pair}`)) log(`DUPLICATE in ${run.id}: agents ${pair}`);
        duplicatePairs.add(`${run.id}:${pair}`);
      }
      for (const [a, b] of run.agents.selfReported())
        duplicatePairs.add(`${run.id}:${[a, b].sort((x, y) => x - y).join('+')}`);
    }
    await sleep(150);
  }
}
