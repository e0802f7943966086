// The printed figures of the big-log and many-runs cases: each timing against bare Node, its
// goal, and the command's peak memory. Figures only, never assertions.

export function fmtMb(x) {
  return x === null ? 'n/a' : `${x.toFixed(0)} MB`;
}

function ok(good) {
  return good ? '✓' : '✗';
}

/** Median times against bare Node, each with its goal and its peak memory. */
function ratioLines(timing, rss, rows) {
  const base = timing.baseline.median;
  const lines = [`  bare node -e 0              ${base.toFixed(1)} ms   1.00×`];
  for (const [name, label, goal] of rows) {
    const t = timing[name].median;
    const ratio = t / base;
    lines.push(
      `  ${label.padEnd(26)}  ${t.toFixed(1)} ms   ${ratio.toFixed(2)}×   goal ≤ ${goal.toFixed(1)}× ${ok(ratio <= goal)}` +
        `   peak RSS ${fmtMb(rss[name])}`,
    );
  }
  return lines;
}

export function bigLogLines(r, { runs, mb, reps }) {
  const dead = (x) => `${(x.ms / 1000).toFixed(2)} s, peak RSS ${fmtMb(x.mb)}`;
  return [
    `big logs: ${runs} live runs, each output.log ${mb} MB (medians of ${reps}, interleaved)`,
    ...ratioLines(r.timing, r.rss, [
      ['reconcile', 'overnight reconcile', 1.5],
      ['status', 'overnight status --json', 2.0],
    ]),
    `  the pass that resumes a killed agent (its stream index up to date): ${dead(r.warm)}` +
      `   goal ≤ 1 s, ≤ 150 MB ${ok(r.warm.ms <= 1000 && r.warm.mb !== null && r.warm.mb <= 150)}`,
    `  the same pass with no stream index (the whole ${mb} MB log read once): ${dead(r.cold)}`,
    `  the first status --json with no index at all (every log read once): ${(r.firstStatus / 1000).toFixed(2)} s`,
  ];
}

export function manyRunsLines(r, { reps }) {
  return [
    `many runs: ${r.finished} finished (all older than the dashboard's window) + ${r.live} live ` +
      `(medians of ${reps}, interleaved; status shows ${r.shown} rows)`,
    ...ratioLines(r.timing, r.rss, [
      ['reconcile', 'overnight reconcile', 1.5],
      ['status', 'overnight status', 2.0],
    ]),
  ];
}
