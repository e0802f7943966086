// What the harness measures of each run: agents alive together (duplicates), agents alive after
// the run ended (orphans), the canary finding (lost), and restarts counted as crashes for
// sessions that did not crash (wasted).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { cmdline, procStart } from './world.mjs';

function jsonLines(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

const read = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/** The agents a run's fake has started (from its calls log), with their start times. */
export class RunAgents {
  constructor(logDir) {
    this.logDir = logDir;
    this.known = new Map(); // pid → start time
  }

  refresh() {
    for (const c of jsonLines(join(this.logDir, 'calls.jsonl'))) {
      if (!this.known.has(c.pid)) {
        const start = procStart(c.pid);
        this.known.set(c.pid, start && cmdline(c.pid).includes('fake-claude') ? start : null);
      }
    }
  }

  /** Pids of this run's agents alive now. */
  alive() {
    this.refresh();
    return [...this.known]
      .filter(([pid, start]) => start !== null && procStart(pid) === start)
      .map(([p]) => p);
  }

  /** Duplicates the fake itself saw: an agent starting while another of its run was alive. */
  selfReported() {
    return jsonLines(join(this.logDir, 'duplicates.jsonl')).map((d) => [d.pid, d.other]);
  }
}

/** Session starts from output.log's markers: their time (as restart.log has it) and number. */
function sessionsByTime(outputLog) {
  const byTime = new Map();
  const text = read(outputLog) ?? '';
  for (const line of text.split('\n')) {
    if (!line.includes('"overnight_session"')) continue;
    try {
      const m = JSON.parse(line);
      if (m.type === 'overnight_session') byTime.set(m.at, m.session);
    } catch {
      // a torn line
    }
  }
  return byTime;
}

/** Endings of a session that are no crash: a crash restart after one of these is wasted. */
const NOT_CRASHES = new Set(['clean', 'limit', 'auth']);

/**
 * A finished run judged: its end, its canary, and how many crash restarts followed a session
 * that did not crash (ended cleanly, on a limit or a refused login, or never started an agent).
 */
export function judgeRun(world, run, killed) {
  const ws = join(world.runs, run.id);
  const state = join(world.runs, '.overnight', run.id);
  const done = read(join(state, 'DONE'));
  const failed = read(join(state, 'FAILED'));
  const report = existsSync(join(ws, 'REPORT.md'));
  const canary = read(join(ws, 'findings', run.canary.file));
  const ends = new Map(jsonLines(join(run.logDir, 'ends.jsonl')).map((e) => [e.pid, e.how]));
  const starts = sessionsByTime(join(state, 'output.log'));
  let wasted = 0;
  const wastedWhy = [];
  for (const line of (read(join(state, 'restart.log')) ?? '').split('\n')) {
    const [at, mode] = line.split('\t');
    if (mode !== 'resume') continue;
    const n = starts.get(at);
    if (n === undefined) continue;
    const pidText = read(join(state, `agent-${n - 1}.pid`));
    const pid = pidText ? Number(pidText.split(' ')[0]) : null;
    const how = pid === null ? 'never started' : killed.has(pid) ? 'killed' : (ends.get(pid) ?? 'killed');
    if (pid === null || NOT_CRASHES.has(how)) {
      wasted++;
      wastedWhy.push(`session ${n - 1} ended ${how}, yet session ${n} was a crash restart`);
    }
  }
  return {
    id: run.id,
    sentinel: done !== null ? 'DONE' : failed !== null ? 'FAILED' : null,
    reason: (done ?? failed ?? '').trim(),
    doneWithReport: done !== null && report,
    lost: canary !== run.canary.text,
    wasted,
    wastedWhy,
  };
}
