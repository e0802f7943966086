// Wall-clock timing of whole commands, resident memory from /proc, and the printed table.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PEAK_RSS = new URL('./peak-rss.mjs', import.meta.url).href;

/**
 * Peak resident memory (MB) of a node command (`[node, script, ...args]`) run once to its end:
 * the process's own VmHWM at exit. Null where /proc cannot tell.
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {number | null}
 */
export function peakRssMb(argv, env) {
  return peakRss(argv, env).mb;
}

/**
 * Like peakRssMb, with the command's wall time (ms) and its stdout.
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ mb: number | null, ms: number, stdout: string }}
 */
export function peakRss(argv, env) {
  const file = join(tmpdir(), `overnight-bench-rss-${process.pid}`);
  rmSync(file, { force: true });
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], ['--import', PEAK_RSS, ...argv.slice(1)], {
    env: { ...env, BENCH_PEAK_RSS_FILE: file },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0)
    throw new Error(`${argv.slice(1).join(' ')} exited ${r.status}: ${String(r.stderr).trim()}`);
  const kb = existsSync(file) ? Number(readFileSync(file, 'utf8').trim().split('\n').pop()) : NaN;
  rmSync(file, { force: true });
  const mb = Number.isFinite(kb) ? kb / 1024 : null;
  return { mb, ms, stdout: String(r.stdout) };
}

/** One run of a command to completion, stdout and stderr to pipes; wall time in ms. */
export function timeOnce(argv, env) {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/**
 * Times every command `reps` times after `warmups` unmeasured rounds. The commands are
 * interleaved (a, b, c, a, b, c, ...) so that a burst of load from elsewhere on the machine
 * weighs on all of them alike and the ratios stay fair. `check(name, result)` sees every run.
 */
/**
 * @param {Array<{ name: string, argv: string[] }>} commands
 * @param {NodeJS.ProcessEnv} env
 * @param {{ reps: number, warmups: number, check?: (name: string, r: ReturnType<typeof timeOnce>, round: number) => void }} opts
 */
export function timeInterleaved(commands, env, { reps, warmups, check = () => {} }) {
  /** @type {Record<string, number[]>} */
  const samples = Object.fromEntries(commands.map((c) => [c.name, []]));
  for (let round = -warmups; round < reps; round++) {
    for (const c of commands) {
      const r = timeOnce(c.argv, env);
      check(c.name, r, round);
      if (round >= 0) samples[c.name].push(r.ms);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, stats(xs)]));
}

/** Median, p90 (nearest rank), min and max of a list of numbers. */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const rank = (q) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { n: s.length, median, p90: rank(0.9), min: s[0], max: s[s.length - 1] };
}

/** A field of /proc/<pid>/status or smaps_rollup, in kB; null when unavailable. */
function procKb(file, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Resident set size in kB (VmRSS), and proportional set size (shared pages split among sharers). */
export function memoryOf(pid) {
  return { rssKb: procKb(`/proc/${pid}/status`, 'VmRSS'), pssKb: procKb(`/proc/${pid}/smaps_rollup`, 'Pss') };
}

export function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return null;
  }
}

export const mb = (kb) => kb / 1024;

const fmt = (x, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(digits));
const mark = (ok) => (ok ? '✓' : '✗');

/** The summary table: figures against the goals, never assertions. */
export function renderTable({ timing, wrapper, tmuxServer, live, finished, reps, warmups }) {
  const base = timing.baseline.median;
  const rows = [['', 'median ms', 'p90 ms', 'ratio', 'goal', '']];
  rows.push(['bare node -e 0', fmt(base), fmt(timing.baseline.p90), '1.00×', '', '']);
  /** @type {Array<[string, string, number]>} */
  const goals = [
    ['reconcile', 'overnight reconcile', 1.5],
    ['status', 'overnight status --json', 2.0],
    ['dashboard', 'overnight status', 2.0],
  ];
  for (const [name, label, goal] of goals) {
    const t = timing[name];
    const ratio = t.median / base;
    rows.push([
      label,
      fmt(t.median),
      fmt(t.p90),
      `${ratio.toFixed(2)}×`,
      `≤ ${goal.toFixed(1)}×`,
      mark(ratio <= goal),
    ]);
  }
  const lines = [];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    lines.push(
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  ')
        .trimEnd(),
    );
  lines.push('');
  if (wrapper.count > 0) {
    lines.push(
      `wrapper RSS per live run   mean ${fmt(wrapper.meanMb, 2)} MB, max ${fmt(wrapper.maxMb, 2)} MB   goal ≤ 5 MB  ${mark(wrapper.maxMb <= 5)}` +
        `   (PSS mean ${fmt(wrapper.pssMeanMb, 2)} MB; ${wrapper.count} wrappers)`,
    );
  } else {
    lines.push('wrapper RSS per live run   n/a (no /proc, or no wrapper found)');
  }
  if (tmuxServer) {
    lines.push(
      `tmux server RSS (shared)   ${fmt(tmuxServer.rssMb, 2)} MB for ${live} sessions (${fmt(tmuxServer.rssMb / live, 2)} MB per run if split)`,
    );
  }
  lines.push(
    `runs: ${finished} finished + ${live} live; ${reps} timed repetitions each after ${warmups} warm-ups, interleaved`,
  );
  return lines;
}
