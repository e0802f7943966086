import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';

// The chaos harness, small: a few compressed nights under every kind of trouble it makes. The
// full run (`npm run chaos`, 200 run-nights and more) is not part of the tests. Seed 5's plans
// (each run's plan, stop and kill come from a generator of its own): 2 of 5 runs stopped, 3
// synthesis sessions that fail before one writes the report. The 4-run goals (p95, p5, every kind
// of fault) are for the full run; here every night must end with its report, on time, and leave
// nothing behind, and the faults must have been injected.

const HARNESS = fileURLToPath(new URL('../../chaos/run.mjs', import.meta.url));
const ROOT = process.getuid?.() === 0;

describe('chaos (smoke)', () => {
  test(
    'a few nights with agents, wrappers, tmux and passes killed, stops, failing syntheses: every ' +
      'night ends with its report; no duplicate agent, no orphan, nothing lost, no wasted restart',
    async () => {
      const r = await execa(
        process.execPath,
        [
          HARNESS,
          ...['--runs', '5', '--concurrency', '5', '--night', '15', '--seed', '5'],
          ...['--disk-every', '12', '--stop-share', '0.4', '--child-share', '0', '--json'],
        ],
        { reject: false, timeout: 280_000, killSignal: 'SIGINT' },
      );
      expect([0, 1], r.stderr).toContain(r.exitCode);
      const s = JSON.parse(r.stdout);
      expect(s, r.stderr).toMatchObject({
        runNights: 3,
        doneWithReport: 3,
        duplicates: 0,
        lost: 0,
        wastedRestarts: 0,
        resume: { never: 0 },
      });
      // No agent, wrapper or timer outlives its run. Stray child processes after the end are still
      // seen in some nights (an open defect, counted in `orphans` and said in the report).
      expect(s.orphanKinds, r.stderr).toMatchObject({ agents: 0, wrappers: 0, timers: 0 });
      expect(s.findings.intact, r.stderr).toBe(s.findings.written);
      expect(s.late.max, r.stderr).toBeLessThanOrEqual(60 + 60);
      // Every night loses its agent at least once; the plans' syntheses fail 3 times; 2 runs stop.
      expect(s.faults.agents, r.stderr).toBeGreaterThanOrEqual(3);
      expect(s.faults.synthesisFailures, r.stderr).toBeGreaterThanOrEqual(3);
      expect(s.faults.stops, r.stderr).toBe(2);
      if (ROOT) expect(s.faults.fullDisks, r.stderr).toBeGreaterThanOrEqual(1);
      expect(s.resume.deaths, r.stderr).toBeGreaterThanOrEqual(3);
    },
    300_000,
  );
});
