// A team's year: 10,000 finished runs, all older than the dashboard's window, and 5 live ones.
// A pass and `status` should cost what is live, not what is old.
import { peakRssMb, timeInterleaved } from './measure.mjs';
import {
  cleanup,
  CLI,
  createSandbox,
  launchLive,
  makeFinishedRuns,
  overnight,
  waitQuiet,
} from './sandbox.mjs';

export async function measureManyRuns({ finished = 10_000, live = 5, reps, warmups }, log) {
  const sb = createSandbox();
  const agentPids = [];
  try {
    let t = Date.now();
    const made = await makeFinishedRuns(sb, finished);
    agentPids.push(made.templateAgentPid);
    log(`many runs: ${finished} finished runs copied in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
    // The first pass rebuilds the runs root's indexes from a full scan, once.
    overnight(sb, ['reconcile']);
    log(`many runs: the indexes rebuilt by one pass in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    for (let i = 0; i < live; i++) agentPids.push((await launchLive(sb, `live-${i}`)).agentPid);
    await waitQuiet(sb);
    const node = process.execPath;
    const check = (name, r) => {
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr.trim()}`);
    };
    const timing = timeInterleaved(
      [
        { name: 'baseline', argv: [node, '-e', '0'] },
        { name: 'reconcile', argv: [node, CLI, 'reconcile'] },
        { name: 'status', argv: [node, CLI, 'status'] },
      ],
      sb.env,
      { reps, warmups, check },
    );
    const shown = overnight(sb, ['status'])
      .split('\n')
      .filter((l) => /^\d{4}-/.test(l)).length;
    const rss = {
      reconcile: peakRssMb([node, CLI, 'reconcile'], sb.env),
      status: peakRssMb([node, CLI, 'status'], sb.env),
    };
    return { timing, rss, shown, finished, live };
  } finally {
    await cleanup(sb, agentPids, log);
  }
}
