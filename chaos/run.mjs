// `npm run chaos`: many compressed nights at once, with a fake agent following random plans
// (crash, hang, usage limit, exit 0 without a result, out of memory, one refused login, bursts of
// large output), while the harness kill -9s agents, wrappers, the tmux server and reconcile passes
// mid-pass, runs stop, pause and resume, and fills the disk for a while (the runs root is a tmpfs
// when running as root). Each run gets a canary finding at launch.
//
//   node chaos/run.mjs [--runs 200] [--concurrency 24] [--night 20] [--seed 1] [--json] [--keep]
//
// --json prints one object: {"runNights","doneWithReport","duplicates","orphans","lost",
// "wastedRestarts"}. Runs the harness stops on purpose end without a report by design: they are
// checked for orphans and canaries but are not run-nights. Progress and details go to stderr.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { judgeRun, RunAgents } from './judge.mjs';
import { Monkey } from './monkey.mjs';
import { planFor, random } from './plans.mjs';
import { createWorld, destroyWorld, overnight } from './world.mjs';

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '24' },
    night: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    'disk-every': { type: 'string', default: '40' },
    'stop-share': { type: 'string', default: '0.04' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const number = (name, min) => {
  const n = Number(opts[name]);
  if (!Number.isFinite(n) || n < min) {
    process.stderr.write(`chaos: --${name} must be a number ≥ ${min}, not ${JSON.stringify(opts[name])}\n`);
    process.exit(2);
  }
  return n;
};
const RUNS = number('runs', 1);
const CONCURRENCY = number('concurrency', 1);
const NIGHT = number('night', 5);
const SEED = number('seed', 0);
const DISK_EVERY = number('disk-every', 0);
const STOP_SHARE = number('stop-share', 0);
/** How long after its end time a run may take to end before it counts as never finished. */
const LATE_S = 150;

const started = Date.now();
const log = (line) =>
  process.stderr.write(`chaos ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s: ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const readText = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

const world = createWorld({ tmpfsMb: 768 });
const rnd = random(SEED);
const monkey = new Monkey(world, rnd, log);
const active = new Map();
const judged = [];
const duplicatePairs = new Set();
let orphans = 0;
/** What the scheduled passes said, for the story of a run that went wrong. */
const schedulerLog = [];
let launched = 0;
let running = true;

process.on('SIGINT', () => {
  log('interrupted: cleaning up');
  destroyWorld(world).finally(() => process.exit(130));
});

try {
  log(
    `world ${world.dir}; runs root on ${world.tmpfs ? 'a tmpfs (the disk will be filled)' : 'the disk (not root: no disk filling)'}; ` +
      `${RUNS} runs, ${CONCURRENCY} at a time, ${NIGHT}s nights, seed ${SEED}`,
  );
  const loops = [schedule(), chaos(), diskFull(), watch()];
  await main();
  running = false;
  await Promise.all([...loops, ...monkey.pending]);
  // Nothing of any run may outlive it.
  for (const run of [...active.values(), ...judged.map((j) => j.run)]) orphans += run.agents.alive().length;
  report();
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
  writeFileSync(behaviour, JSON.stringify(planFor(rnd)));
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
      const stopAt = rnd() < STOP_SHARE ? Date.now() + rnd() * NIGHT * 1000 : null;
      active.set(id, {
        id,
        logDir,
        canary,
        endsAt: new Date(endsAt).getTime(),
        stopAt,
        stopped: false,
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

async function check(run) {
  if (run.stopAt && !run.stopped && Date.now() >= run.stopAt) {
    run.stopped = true;
    const r = await overnight(world, ['stop', run.id]);
    if (r.code !== 0) log(`stop ${run.id}: exit ${r.code}: ${r.stderr.trim()}`);
    // When stop returns, no agent of the run is alive.
    const left = run.agents.alive();
    if (left.length > 0) log(`ORPHAN after stop ${run.id}: agents ${left.join(', ')}`);
    orphans += left.length;
  }
  const ws = join(world.runs, run.id);
  const ended = existsSync(join(ws, 'DONE')) || existsSync(join(ws, 'FAILED'));
  const settled = ended && !existsSync(join(world.runs, '.live', run.id));
  const late = Date.now() > run.endsAt + LATE_S * 1000;
  if (!settled && !late) return;
  if (!settled) {
    log(`${run.id}: not finished ${LATE_S}s after its end time; stopping it`);
    await overnight(world, ['stop', run.id]);
  }
  const result = judgeRun(world, run, monkey.killed);
  const left = run.agents.alive();
  if (left.length > 0) log(`ORPHAN after the end of ${run.id}: agents ${left.join(', ')}`);
  orphans += left.length;
  if (result.lost) log(`LOST canary of ${run.id}`);
  for (const why of result.wastedWhy) log(`wasted restart in ${run.id}: ${why}`);
  if (!run.stopped && !result.doneWithReport) {
    log(`${run.id}: ${result.sentinel ?? 'unfinished'} without a report: ${result.reason}`);
    for (const file of ['restart.log', 'events.jsonl'])
      log(
        `  ${file}:\n${(readText(join(world.runs, '.overnight', run.id, file)) ?? '').trimEnd().split('\n').slice(-12).join('\n')}`,
      );
    const passes = [...schedulerLog, ...(readText(join(world.runs, 'reconcile.log')) ?? '').split('\n')]
      .flatMap((entry) => entry.split('\n'))
      .filter((l) => l.includes(run.id) || /^\d{4}-.*exit [1-9]/.test(l));
    log(`  passes about it:\n${passes.slice(-25).join('\n')}`);
  }
  judged.push({ run, result, finished: settled });
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
    const inNight = [...active.values()].filter((r) => !r.stopped && Date.now() < r.endsAt + 5000);
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

function report() {
  const nights = judged.filter((j) => !j.run.stopped);
  const summary = {
    runNights: nights.length,
    doneWithReport: nights.filter((j) => j.result.doneWithReport).length,
    duplicates: duplicatePairs.size,
    orphans,
    lost: judged.filter((j) => j.result.lost).length,
    wastedRestarts: judged.reduce((n, j) => n + j.result.wasted, 0),
  };
  const share = summary.runNights ? ((100 * summary.doneWithReport) / summary.runNights).toFixed(1) : '0';
  const c = monkey.counts;
  log(
    `${summary.runNights} run-nights (+${judged.length - nights.length} stopped on purpose), ${share} % DONE with REPORT.md; ` +
      `chaos: ${c.agents} agents, ${c.wrappers} wrappers, ${c.tmuxServer} tmux servers and ${c.passes} passes killed, ` +
      `${c.pauses} pauses, ${c.diskFull} full disks; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  if (opts.json) process.stdout.write(JSON.stringify(summary) + '\n');
  else
    process.stdout.write(
      `${Object.entries(summary)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}\n`,
    );
}
