// The guess at what a mistyped word meant: a run's name, a config key. Pure and bounded.

/** The closest of `names` to `slug` by edit distance, when it is close enough to be a typo. */
export function nearest(slug: string, names: readonly string[]): string | null {
  const most = Math.max(1, Math.floor(slug.length / 4));
  let best: { name: string; d: number } | null = null;
  for (const name of new Set(names)) {
    // Bounded: names are at most a slug long, and far ones are cut short.
    if (Math.abs(name.length - slug.length) > most) continue;
    const d = distance(slug, name, most);
    if (d > 0 && d <= most && (!best || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

/** Edit distance with swapped neighbours as one edit (a typo), stopped once every path is over `limit`. */
function distance(a: string, b: string, limit: number): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let low = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, (before[j - 2] as number) + 1);
      row.push(v);
      low = Math.min(low, v);
    }
    if (low > limit) return low;
    before = prev;
    prev = row;
  }
  return prev[b.length] as number;
}
