// What the harness reads of each run, from ground truth: the fake agent's own records (calls,
// ends, findings, synthesis failures in its log directory), /proc (agents alive, and when each was
// last seen), and the run's files on disk (DONE/FAILED records and their time, REPORT.md, findings,
// restart.log). The figures are computed from these by night.mjs and summary.mjs.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { wastedAfter } from './night.mjs';
import { cmdline, procStart, startMs } from './world.mjs';

/** Lines of a JSON-lines file appended to by others, read incrementally; torn lines wait. */
class JsonTail {
  constructor(path) {
    this.path = path;
    this.offset = 0;
    this.rest = '';
  }

  /** @returns {any[]} the records appended since the last call */
  next() {
    if (!existsSync(this.path)) return [];
    const fd = openSync(this.path, 'r');
    const chunks = [];
    try {
      const buf = Buffer.alloc(1 << 16);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n <= 0) break;
        chunks.push(Buffer.from(buf.subarray(0, n)));
        this.offset += n;
      }
    } finally {
      closeSync(fd);
    }
    const text = this.rest + Buffer.concat(chunks).toString('utf8');
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    return lines.flatMap((l) => {
      try {
        return l.trim() ? [JSON.parse(l)] : [];
      } catch {
        return [];
      }
    });
  }
}

const jsonLines = (path) => new JsonTail(path).next();
const read = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

/**
 * The agents a run's fake has started (from its calls log): when each started, when it was last
 * seen alive in /proc, and how it ended by its own record.
 */
export class RunAgents {
  constructor(logDir) {
    this.logDir = logDir;
    this.calls = new JsonTail(join(logDir, 'calls.jsonl'));
    this.ends = new JsonTail(join(logDir, 'ends.jsonl'));
    /** @type {Map<number, { start: string | null, startedAt: number, synthesis: boolean, gone: number | null, end: { how: string, at: number } | null }>} */
    this.known = new Map();
  }

  refresh() {
    for (const c of this.calls.next()) {
      if (this.known.has(c.pid)) continue;
      const start = procStart(c.pid);
      this.known.set(c.pid, {
        start: start && cmdline(c.pid).includes('fake-claude') ? start : null,
        // The process's own start (exec), else when the fake got going (node's start takes a while).
        startedAt: Math.min(c.at, startMs(start) ?? Infinity),
        synthesis: typeof c.stdin === 'string' && c.stdin.includes('Time is up'),
        gone: null,
        end: null,
      });
    }
    for (const e of this.ends.next()) {
      const a = this.known.get(e.pid);
      if (a) a.end = { how: e.how, at: e.at ?? Date.now() };
    }
  }

  /** Pids of this run's agents alive now; notes when each one was first seen gone. */
  alive() {
    this.refresh();
    const now = Date.now();
    const pids = [];
    for (const [pid, a] of this.known) {
      if (a.start !== null && procStart(pid) === a.start) pids.push(pid);
      else a.gone ??= now;
    }
    return pids;
  }

  /**
   * Each agent's life: its end is its own record's time, else when it was first seen gone
   * (killed with SIGKILL leaves no record) or when the harness killed it; null while alive.
   * @param {Map<number, number>} [killed]   pids the harness killed, and when
   * @returns {import('./night.mjs').AgentLife[]}
   */
  lives(killed = new Map()) {
    const alive = new Set(this.alive());
    return [...this.known].map(([pid, a]) => {
      // A kill before this agent started was of another process of that pid (pids wrap around).
      const kill = killed.get(pid);
      const killedAt = kill !== undefined && kill >= a.startedAt ? kill : Infinity;
      return {
        pid,
        startedAt: a.startedAt,
        endedAt: alive.has(pid) ? null : Math.min(a.end?.at ?? Infinity, killedAt, a.gone ?? Infinity),
        how: a.end?.how ?? 'killed',
        synthesis: a.synthesis,
      };
    });
  }

  /** Duplicates the fake itself saw: an agent starting while another of its run was alive. */
  selfReported() {
    return jsonLines(join(this.logDir, 'duplicates.jsonl')).map((d) => [d.pid, d.other]);
  }

  /** Synthesis sessions the plan made fail (crash, hang, no report). */
  synthesisFailures() {
    return jsonLines(join(this.logDir, 'synthesis.jsonl')).length;
  }
}

/** Session starts from output.log's markers: their time (as restart.log has it) and number. */
function sessionsByTime(outputLog) {
  const byTime = new Map();
  for (const line of (read(outputLog) ?? '').split('\n')) {
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

/** Crash restarts that followed a session that did not crash (ended cleanly, on a limit, …). */
function wastedRestarts(state, ends, killed) {
  const starts = sessionsByTime(join(state, 'output.log'));
  const why = [];
  for (const line of (read(join(state, 'restart.log')) ?? '').split('\n')) {
    const [at, mode] = line.split('\t');
    if (mode !== 'resume') continue;
    const n = starts.get(at);
    if (n === undefined) continue;
    const pidText = read(join(state, `agent-${n - 1}.pid`));
    const pid = pidText ? Number(pidText.split(' ')[0]) : null;
    // No pid record: never started (then it is started again, no crash), or its agent could not
    // record itself and the wrapper recorded the failure (an exit record): that one did fail.
    const unrecorded = read(join(state, `agent-${n - 1}.exit`)) !== null;
    const how =
      pid === null
        ? unrecorded
          ? 'unrecorded'
          : 'never started'
        : killed.has(pid)
          ? 'killed'
          : (ends.get(pid) ?? 'killed');
    if (wastedAfter(how)) why.push(`session ${n - 1} ended ${how}, yet session ${n} was a crash restart`);
  }
  return why;
}

/** Findings the fake wrote (the last text of each file) and how many read back the same. */
function findingsOf(run, ws) {
  const last = new Map();
  for (const f of jsonLines(join(run.logDir, 'findings.jsonl'))) last.set(f.file, f.text);
  let intact = 0;
  for (const [file, text] of last) if (read(join(ws, 'findings', file)) === text) intact++;
  return { written: last.size, intact };
}

/**
 * A finished run judged from its files and its agents' lives. `gaveUpAt`: when the harness
 * stopped a run that did not end in time (its DONE then is the harness's, not the night's).
 * @param {number | null} [gaveUpAt]
 * @returns {{ night: import('./night.mjs').Night, reason: string, wastedWhy: string[] }}
 */
export function judgeRun(world, run, monkey, gaveUpAt = null) {
  const killed = monkey.killed;
  const ws = join(world.runs, run.id);
  const state = join(world.runs, '.overnight', run.id);
  const sentinel = existsSync(join(state, 'DONE'))
    ? 'DONE'
    : existsSync(join(state, 'FAILED'))
      ? 'FAILED'
      : null;
  const finishedAt = sentinel && !gaveUpAt ? statSync(join(state, sentinel)).mtimeMs : null;
  const ends = new Map(jsonLines(join(run.logDir, 'ends.jsonl')).map((e) => [e.pid, e.how]));
  const wastedWhy = wastedRestarts(state, ends, killed);
  return {
    night: {
      id: run.id,
      launchAt: run.launchAt,
      endsAt: run.endsAt,
      finishedAt,
      gaveUpAt,
      sentinel,
      report: existsSync(join(ws, 'REPORT.md')),
      agents: run.agents.lives(killed),
      excused: [...run.pauses, ...monkey.fullDisks],
      findings: findingsOf(run, ws),
      canaryIntact: read(join(ws, 'findings', run.canary.file)) === run.canary.text,
      wasted: wastedWhy.length,
    },
    reason: sentinel ? (read(join(state, sentinel)) ?? '').trim() : 'unfinished',
    wastedWhy,
  };
}
