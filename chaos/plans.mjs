// What the fake agent does in each session of a chaos night: a random plan per run, from a
// seeded generator so that a run of the harness can be repeated.

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (rnd, lo, hi) => Math.round((lo + rnd() * (hi - lo)) * 10) / 10;

/**
 * Session endings and how often each is drawn.
 * @type {Array<[string, number, (rnd: () => number) => Record<string, unknown>]>}
 */
const ENDINGS = [
  ['crash', 18, (rnd) => ({ work: between(rnd, 0.5, 3), exit: 1 })],
  ['hang', 8, () => ({ hang: true })],
  ['limit', 8, () => ({ limitIn: 2 })],
  ['no-result', 8, (rnd) => ({ work: between(rnd, 0.5, 2), noResult: true })],
  ['oom', 8, (rnd) => ({ work: between(rnd, 0.5, 2), oom: true })],
  ['clean', 18, (rnd) => ({ work: between(rnd, 1, 3) })],
  ['burst', 16, (rnd) => ({ work: 900, burst: Math.ceil(rnd() * 4) })],
  ['long', 16, () => ({ work: 900 })],
];
const TOTAL = ENDINGS.reduce((n, [, w]) => n + w, 0);

function draw(rnd) {
  let x = rnd() * TOTAL;
  for (const [name, weight, make] of ENDINGS) {
    if ((x -= weight) < 0) return { name, ...make(rnd) };
  }
  return { name: 'long', work: 900 };
}

/** How a synthesis may fail before one writes the report. */
const SYNTHESIS_FAILURES = ['crash', 'hang', 'no-report'];

/**
 * A run's plan: a few random sessions, at most one refused login (never two in a row), then a
 * long session that works far past the end time (the fake repeats the last entry), so that only
 * the supervisor's interrupt at the end time gets the synthesis going. Every session writes a
 * finding when its work is done, and any session given the synthesis prompt writes REPORT.md,
 * after the failures `whenAsked` lists (a third of the runs: one or two synthesis sessions that
 * crash, hang or end without a report). Some sessions start a child process in their group,
 * which lives on only when the agent is killed.
 */
export function planFor(rnd, { sessions = 3, childShare = 0.15 } = {}) {
  /** @type {Array<Record<string, unknown>>} */
  const plan = [];
  for (let i = 0; i < sessions; i++) plan.push(draw(rnd));
  if (rnd() < 0.3) plan.splice(Math.floor(rnd() * sessions), 0, { name: 'auth', auth: true });
  plan.push({ name: 'long', work: 900 });
  const whenAsked =
    rnd() < 0.33
      ? Array.from({ length: rnd() < 0.7 ? 1 : 2 }, () => SYNTHESIS_FAILURES[Math.floor(rnd() * 3)])
      : [];
  return plan.map((p, i) => ({
    ...p,
    ...(rnd() < childShare ? { child: 'owned' } : {}),
    finding: `session-${i + 1}.md`,
    reportWhenAsked: true,
    whenAsked,
  }));
}
