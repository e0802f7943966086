// "after a reboot": every live run's wrapper and agent vanish at once, leaving no exit record
// (wrappers and agents are killed with SIGKILL, then the tmux server). One reconcile pass is
// timed: it must resume them all, with one exit-race grace for the whole pass rather than one per run.
import { isRunning, overnight, sessionAgent, sleep, tmux } from './sandbox.mjs';

export async function measureReboot(sb, agentPids) {
  const running = JSON.parse(overnight(sb, ['status', '--json']))
    .filter((r) => r.state === 'running')
    .map((r) => r.id);
  const agents = running.map((id) => sessionAgent(sb.runs, id)).filter((a) => a);
  // Wrappers first (each pane's process), so that none lives to record its agent's end.
  const wrappers = tmux(sb, ['list-panes', '-a', '-F', '#{pane_pid}'])
    .split('\n')
    .filter(Boolean)
    .map(Number);
  for (const pid of [...wrappers, ...agents.map((a) => a.pid)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  try {
    tmux(sb, ['kill-server']);
  } catch {
    // with every pane gone the server may have exited by itself
  }
  for (
    const deadline = Date.now() + 10_000;
    [...wrappers, ...agents.map((a) => a.pid)].some(isRunning) && Date.now() < deadline;
  )
    await sleep(20);
  const t0 = Date.now();
  const out = overnight(sb, ['reconcile']);
  const ms = Date.now() - t0;
  const resumed = out.split('\n').filter((l) => /: resumed /.test(l)).length;
  for (const id of running) {
    const a = sessionAgent(sb.runs, id);
    if (a) agentPids.push(a.pid);
  }
  return { runs: running.length, resumed, ms };
}
