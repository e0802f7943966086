// "crash → agent running again": kill -9 a live run's agent and time until the next session's
// agent process exists, with no scheduler at all (the wrapper's own pass does the work). The
// agent keeps a transcript and streams its log, so each crash takes the real `--resume` path;
// backoff is as configured (defaults), and each crash comes after the session ran healthy_after
// (a few seconds here), as a crash after a stretch of work does in a night: no backoff is due.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { streamEnv } from './agent.mjs';
import { stats } from './measure.mjs';
import { isRunning, overnight, sessionAgent, sleep } from './sandbox.mjs';

const HEALTHY_AFTER_S = 3;

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

/**
 * The agent's command line: a resume names the conversation with --resume. The pid is recorded
 * by the wrapper's shell just before it execs the agent: its command line is read once it has.
 * Null when it cannot be told (the process already gone, or still the shell after 2 s).
 */
async function resumed(pid) {
  const deadline = Date.now() + 2000;
  for (;;) {
    let args;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return null;
    }
    if (args.length <= 1) return null; // a zombie: its command line is gone
    if (!args.includes('--exec-agent')) return args.includes('--resume');
    if (Date.now() > deadline) return null;
    await sleep(5);
  }
}

/** Median and spread over `trials` crashes of one run, each after a healthy stretch. */
export async function measureRecovery(sb, trials, agentPids) {
  const env = {
    ...sb.env,
    ...streamEnv(3),
    OVERNIGHT_HEALTHY_AFTER: `${HEALTHY_AFTER_S}s`,
    OVERNIGHT_MAX_RESTARTS: String(trials + 5),
  };
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
  let fresh = 0;
  let untold = 0;
  for (let i = 0; i < trials; i++) {
    await sleep(HEALTHY_AFTER_S * 1000 + 500);
    const before = agent;
    const t0 = process.hrtime.bigint();
    process.kill(before.pid, 'SIGKILL');
    agent = await until(() => {
      const now = currentAgent(sb.runs, id);
      return now && now.n > before.n ? now : null;
    }, 30_000);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    agentPids.push(agent.pid);
    const how = await resumed(agent.pid);
    if (how === false) fresh++;
    if (how === null) untold++;
  }
  const restarts = readFileSync(join(sb.runs, '.overnight', id, 'restart.log'), 'utf8');
  const modes = restarts.split('\n').filter((l) => l.split('\t')[1] === 'resume').length;
  return { id, ...stats(times), fresh, untold, resumes: modes };
}
