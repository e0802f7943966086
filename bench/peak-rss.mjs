// Loaded first by the bench (`node --import bench/peak-rss.mjs ...`): when the process exits, its
// peak resident set size (VmHWM, in kB) is appended to $BENCH_PEAK_RSS_FILE. Linux only.
import { appendFileSync, readFileSync } from 'node:fs';

process.on('exit', () => {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb && process.env.BENCH_PEAK_RSS_FILE) appendFileSync(process.env.BENCH_PEAK_RSS_FILE, `${kb}\n`);
  } catch {
    // no /proc: nothing to say
  }
});
