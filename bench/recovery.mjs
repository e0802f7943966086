// "crash → agent running again": kill -9 a live run's agent and time until the next session's
// agent process exists, with no scheduler at all (the wrapper's own pass does the work).
import { stats } from './measure.mjs';
import { isRunning, overnight, sessionAgent, sleep } from './sandbox.mjs';

function currentAgent(runs, id) {
  const agent = sessionAgent(runs, id);
  return agent && isRunning(agent.pid) ? agent : null;
}

async function until(check, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('recovery: the agent did not come back within 30 s');
    await sleep(5);
  }
}

/** Median and spread over `trials` crashes of one run; every restart counts as healthy, so no backoff. */
export async function measureRecovery(sb, trials, agentPids) {
  const env = { ...sb.env, OVERNIGHT_HEALTHY_AFTER: '0s', OVERNIGHT_MAX_RESTARTS: String(trials + 5) };
  const { id } = JSON.parse(
    overnight({ ...sb, env }, [
      'launch',
      'Crash me repeatedly',
      '--name',
      'recovery',
      '--duration',
      '2h',
      '--json',
    ]),
  );
  let agent = await until(() => currentAgent(sb.runs, id), 30_000);
  const times = [];
  for (let i = 0; i < trials; i++) {
    const before = agent;
    const t0 = process.hrtime.bigint();
    process.kill(before.pid, 'SIGKILL');
    agent = await until(() => {
      const now = currentAgent(sb.runs, id);
      return now && now.n > before.n ? now : null;
    }, 30_000);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    agentPids.push(agent.pid);
  }
  return { id, ...stats(times) };
}
