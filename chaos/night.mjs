// What one night was, measured from ground truth: when each agent of the run lived (the fake's
// own records and /proc), when the run was paused, when it ended (its DONE/FAILED record on disk).
// Pure: no I/O, no clock; times are milliseconds since the epoch.

/**
 * @typedef {object} AgentLife
 * @property {number} pid
 * @property {number} startedAt
 * @property {number | null} endedAt   null: still alive when judged
 * @property {string} how     the fake's own word ('clean', 'crash', 'oom', …) or 'killed' (no record)
 * @property {boolean} synthesis   given the synthesis prompt
 *
 * @typedef {object} Night
 * @property {string} id
 * @property {number} launchAt
 * @property {number} endsAt
 * @property {number | null} finishedAt   when DONE or FAILED was recorded; null: never
 * @property {number | null} [gaveUpAt]   when the harness stopped it for not ending (then finishedAt is null)
 * @property {'DONE' | 'FAILED' | null} sentinel
 * @property {boolean} report   REPORT.md at the end
 * @property {AgentLife[]} agents
 * @property {Array<[number, number]>} excused   from, to: paused, or the disk full (no agent owed)
 * @property {{ written: number, intact: number }} findings
 * @property {boolean} canaryIntact
 * @property {number} [wasted]   crash restarts after a session that did not crash
 *
 * @typedef {object} NightFigures
 * @property {number[]} resumeGaps   seconds from each death in the night to the next agent's start
 * @property {number} never   deaths well before the end time not resumed before it
 * @property {number | null} worked   fraction of the night with an agent alive (waits excluded)
 * @property {number} late   seconds from the end time to DONE/FAILED (or to `now`: never ended)
 */

/** Endings that are a death to recover from; the others continue, wait or end by design. */
export const DEATHS = new Set(['crash', 'oom', 'killed', 'error', 'terminated']);
/** Endings of a session that are no crash: a crash restart after one of these is wasted. */
const NOT_CRASHES = new Set(['clean', 'limit', 'auth']);

/**
 * Whether a crash restart after a session that ended so (`how`: the fake's own word, 'killed',
 * 'never started' or 'unrecorded') was wasted. A session that never started is started again, not
 * restarted as a crash. One whose agent could not record its pid (a full disk) ended with the
 * wrapper's exit 1 ('unrecorded'): counting that as a crash is what keeps a full disk from a hot
 * loop of starts (backoff), so its restart is no misread end.
 * @param {string} how
 */
export const wastedAfter = (how) => NOT_CRASHES.has(how) || how === 'never started';

/** A death this long (ms) before the end time, pauses and full disks aside, must be resumed before it. */
export const NEVER_MARGIN_MS = 10_000;

/** Total length of the union of intervals, each clipped to [from, to]. */
export function covered(intervals, from, to) {
  const clipped = intervals
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of clipped) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/**
 * The figures of one night. `now` stands in for the end of an agent still alive.
 * @param {Night} night
 * @param {number} now
 * @returns {NightFigures}
 */
export function measureNight(night, now) {
  const agents = [...night.agents].sort((a, b) => a.startedAt - b.startedAt);
  const ended = night.finishedAt ?? night.gaveUpAt ?? now;
  const resumeGaps = [];
  let never = 0;
  /** Time no agent is owed: a usage limit waited out, a pause, a full disk. */
  const waits = [...night.excused];
  for (const [i, a] of agents.entries()) {
    const endedAt = a.endedAt;
    if (endedAt === null) continue;
    // The next agent is the next one started: an end seen by polling /proc can lag a successor's
    // start (a kill by the supervisor leaves no record), which then resumed it at once.
    const next = agents[i + 1] ?? null;
    const gapEnd = next ? Math.max(next.startedAt, endedAt) : ended;
    if (a.how === 'limit') waits.push([endedAt, gapEnd]);
    if (!DEATHS.has(a.how) || a.synthesis || endedAt >= night.endsAt) continue;
    // A death in a pause is not resumed until the pause ends, by design; nor while the disk is
    // full: that time is not held against the resume (the rest of the gap is).
    resumeGaps.push((gapEnd - endedAt - covered(night.excused, endedAt, gapEnd)) / 1000);
    // Owed a resume before the end time: at least NEVER_MARGIN_MS of time left that no pause or
    // full disk excuses.
    const owedLeft = night.endsAt - endedAt - covered(night.excused, endedAt, night.endsAt);
    if (owedLeft >= NEVER_MARGIN_MS && (!next || next.startedAt >= night.endsAt)) never++;
  }
  const alive = agents.map((a) => [a.startedAt, a.endedAt ?? now]);
  const window = night.endsAt - night.launchAt;
  const excused = covered(waits, night.launchAt, night.endsAt);
  const aliveOrExcused = covered([...alive, ...waits], night.launchAt, night.endsAt);
  const owed = window - excused;
  return {
    resumeGaps,
    never,
    worked: owed > 0 ? (aliveOrExcused - excused) / owed : null,
    late: (ended - night.endsAt) / 1000,
  };
}

/** Nearest-rank quantile of a list of numbers; null for none. */
export function quantile(xs, q) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
