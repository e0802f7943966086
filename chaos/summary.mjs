// The harness's figures over all nights, and the goals they are held to. Pure: the table tests
// feed it synthetic nights (test/unit/chaos-judge.test.ts).
import { measureNight, quantile } from './night.mjs';

/**
 * @typedef {import('./night.mjs').Night} Night
 * @typedef {{ pid: number, kind: 'agent' | 'wrapper' | 'child' | 'timer' | 'other', when: 'after stop' | 'after the end', cmd?: string }} Orphan
 * @typedef {{ agents: number, wrappers: number, tmux: number, passes: number, stops: number,
 *   pauses: number, fullDisks: number, synthesisFailures: number }} Faults
 * @typedef {object} Inputs
 * @property {Night[]} nights   run-nights: the runs the harness did not stop on purpose
 * @property {Night[]} stopped   runs stopped on purpose (canaries and findings still count)
 * @property {Orphan[]} orphans
 * @property {number} duplicates   distinct pairs of agents of one run alive at once
 * @property {Faults} faults
 * @property {number} now
 */

/** @type {Record<Orphan['kind'], 'agents' | 'wrappers' | 'children' | 'timers' | 'other'>} */
const KIND_KEY = { agent: 'agents', wrapper: 'wrappers', child: 'children', timer: 'timers', other: 'other' };

const round = (x, digits = 2) => (x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** @param {Inputs} inputs */
export function summarize({ nights, stopped, orphans, duplicates, faults, now }) {
  const figures = nights.map((n) => measureNight(n, now));
  const gaps = figures.flatMap((f) => f.resumeGaps);
  const worked = figures.map((f) => f.worked).filter((w) => w !== null);
  const late = figures.map((f) => f.late);
  const all = [...nights, ...stopped];
  const pids = new Map(orphans.map((o) => [o.pid, o]));
  const kinds = { agents: 0, wrappers: 0, children: 0, timers: 0, other: 0 };
  for (const o of pids.values()) kinds[KIND_KEY[o.kind]]++;
  return {
    runNights: nights.length,
    doneWithReport: nights.filter((n) => n.sentinel === 'DONE' && n.report).length,
    duplicates,
    orphans: pids.size,
    lost: all.filter((n) => !n.canaryIntact).length,
    wastedRestarts: all.reduce((k, n) => k + (n.wasted ?? 0), 0),
    resume: {
      p50: round(quantile(gaps, 0.5)),
      p95: round(quantile(gaps, 0.95)),
      max: round(quantile(gaps, 1)),
      never: figures.reduce((k, f) => k + f.never, 0),
      deaths: gaps.length,
    },
    worked: { p5: round(quantile(worked, 0.05), 3), median: round(quantile(worked, 0.5), 3) },
    late: { p95: round(quantile(late, 0.95), 1), max: round(quantile(late, 1), 1) },
    findings: {
      written: all.reduce((k, n) => k + n.findings.written, 0),
      intact: all.reduce((k, n) => k + n.findings.intact, 0),
    },
    orphanKinds: {
      ...kinds,
      afterStop: [...pids.values()].filter((o) => o.when === 'after stop').length,
      afterEnd: [...pids.values()].filter((o) => o.when === 'after the end').length,
    },
    faults,
  };
}

/**
 * Each goal: its name, the figure, the goal in words, met or not. `synthesisBudget` in seconds;
 * `canFillDisk`: whether this world could inject full disks at all; `hasTmux`: whether its runs
 * have a tmux server to kill (not on the detached backend).
 * @param {ReturnType<typeof summarize>} s
 * @param {{ synthesisBudget: number, canFillDisk: boolean, hasTmux?: boolean }} config
 */
export function checkGoals(s, { synthesisBudget, canFillDisk, hasTmux = true }) {
  const share = s.runNights ? s.doneWithReport / s.runNights : 0;
  const lateMax = synthesisBudget + 60;
  const kinds = Object.entries(s.faults).filter(
    ([k]) => (k !== 'fullDisks' || canFillDisk) && (k !== 'tmux' || hasTmux),
  );
  const missing = kinds.filter(([, n]) => n === 0).map(([k]) => k);
  /** @type {Array<[string, string, string, boolean]>} */
  const goals = [
    ['DONE with REPORT.md', `${(100 * share).toFixed(1)} %`, '≥ 99 %', s.runNights > 0 && share >= 0.99],
    [
      'resume p95',
      sec(s.resume.p95),
      '≤ 5 s',
      s.resume.deaths > 0 && s.resume.p95 !== null && s.resume.p95 <= 5,
    ],
    ['never resumed', String(s.resume.never), '0', s.resume.never === 0],
    ['worked p5', pct(s.worked.p5), '≥ 80 %', s.worked.p5 !== null && s.worked.p5 >= 0.8],
    ['late max', sec(s.late.max), `≤ ${lateMax} s`, s.late.max !== null && s.late.max <= lateMax],
    ['duplicates', String(s.duplicates), '0', s.duplicates === 0],
    ['orphans', String(s.orphans), '0', s.orphans === 0],
    ['lost canaries', String(s.lost), '0', s.lost === 0],
    [
      'findings intact',
      `${s.findings.intact} of ${s.findings.written}`,
      'all',
      s.findings.intact === s.findings.written,
    ],
    ['wasted restarts', String(s.wastedRestarts), '0', s.wastedRestarts === 0],
    [
      'faults injected',
      missing.length ? `none: ${missing.join(', ')}` : 'every kind',
      'every kind',
      missing.length === 0,
    ],
  ];
  return goals.map(([name, value, goal, ok]) => ({ name, value, goal, ok }));
}

const sec = (x) => (x === null ? 'n/a' : `${x} s`);
const pct = (x) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)} %`);
