// Runs whose output.log has grown to 150 MB (long sessions whose --verbose stream-json carries
// every tool result): `status --json` and a steady pass over four of them, and the pass that
// handles one of their agents dying, with and without the stream index already built.
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import { peakRss, peakRssMb, timeInterleaved, timeOnce } from './measure.mjs';
import { cleanup, CLI, createSandbox, launchLive, sandboxReconciles, sleep, waitQuiet } from './sandbox.mjs';

/** Appends `mb` megabytes of a busy session's stream-json: tool calls, their results (a few over 1 MB), text. */
function growLog(path, mb) {
  const fd = openSync(path, 'a');
  const line = (o) => JSON.stringify(o) + '\n';
  const result = (bytes) =>
    line({ type: 'user', message: { content: [{ type: 'tool_result', content: 'r'.repeat(bytes) }] } });
  const call = line({
    type: 'assistant',
    message: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: '/a' } }] },
  });
  const text = line({
    type: 'assistant',
    message: { content: [{ type: 'text', text: 'Reading the next source.' }] },
  });
  const medium = result(40_000);
  const huge = result(3_000_000);
  try {
    for (let written = 0, i = 1; written < mb * 1024 * 1024; i++) {
      const chunk = call + (i % 400 === 0 ? huge : medium) + text;
      writeSync(fd, chunk);
      written += Buffer.byteLength(chunk);
    }
  } finally {
    closeSync(fd);
  }
}

async function until(what, ms, check) {
  for (const deadline = Date.now() + ms; !check(); await sleep(20))
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

/**
 * One agent killed while a fresh fake lock keeps the wrapper's own pass out; then the pass that
 * resumes it is timed, with its peak memory. `cold`: its stream index removed first, so the pass
 * reads the whole log (no status or pass read it during the night).
 */
async function deadAgentPass(sb, run, cold) {
  const lock = join(sb.runs, '.reconcile.lock');
  mkdirSync(lock);
  try {
    process.kill(run.agentPid, 'SIGKILL');
    const exit = join(sb.runs, '.overnight', run.id, 'agent-1.exit');
    await until('the exit record', 20_000, () => existsSync(exit));
    await until("the wrapper's pass", 20_000, () => sandboxReconciles(sb).length === 0);
    if (cold) rmSync(join(sb.runs, '.overnight', run.id, 'stream-index.json'), { force: true });
  } finally {
    rmSync(join(sb.runs, '.pass-requested'), { force: true });
    rmSync(lock, { recursive: true, force: true });
  }
  const argv = [process.execPath, CLI, 'reconcile'];
  const { ms, mb, stdout } = peakRss(argv, sb.env);
  if (!/resumed/.test(stdout)) throw new Error(`the pass did not resume ${run.id}: ${stdout.trim()}`);
  await waitQuiet(sb);
  return { ms, mb };
}

export async function measureBigLogs({ runs = 4, mb = 150, reps, warmups }, log) {
  const sb = createSandbox();
  const agentPids = [];
  try {
    const live = [];
    for (let i = 0; i < runs; i++) {
      const run = await launchLive(sb, `big-log-${i}`);
      agentPids.push(run.agentPid);
      live.push(run);
    }
    await waitQuiet(sb);
    let t = Date.now();
    for (const run of live) growLog(join(sb.runs, '.overnight', run.id, 'output.log'), mb);
    log(
      `big logs: ${runs} live runs with ${mb} MB logs written in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );
    const node = process.execPath;
    const timing = timeInterleaved(
      [
        { name: 'baseline', argv: [node, '-e', '0'] },
        { name: 'reconcile', argv: [node, CLI, 'reconcile'] },
        { name: 'status', argv: [node, CLI, 'status', '--json'] },
      ],
      sb.env,
      { reps, warmups },
    );
    const rss = {
      reconcile: peakRssMb([node, CLI, 'reconcile'], sb.env),
      status: peakRssMb([node, CLI, 'status', '--json'], sb.env),
    };
    t = Date.now();
    const warm = await deadAgentPass(sb, live[0], false);
    const cold = await deadAgentPass(sb, live[1], true);
    log(`big logs: two dead agents handled in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    // The first status read every log whole to build their indexes: timed once, apart.
    return { timing, rss, warm, cold, firstStatus: firstStatusOf(sb, live) };
  } finally {
    await cleanup(sb, agentPids, log);
  }
}

/** status --json with every stream index removed: what the first reader after an upgrade pays. */
function firstStatusOf(sb, live) {
  for (const run of live) rmSync(join(sb.runs, '.overnight', run.id, 'stream-index.json'), { force: true });
  const r = timeOnce([process.execPath, CLI, 'status', '--json'], sb.env);
  return r.ms;
}
