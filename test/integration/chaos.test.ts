import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, test } from 'vitest';

// The chaos harness, small: a few compressed nights under every kind of trouble it makes. The
// full run (`npm run chaos`, 200 run-nights and more) is not part of the tests.

const HARNESS = fileURLToPath(new URL('../../chaos/run.mjs', import.meta.url));

describe('chaos (smoke)', () => {
  test(
    'a few nights with agents, wrappers, tmux and passes killed: every one ends with its report; ' +
      'no duplicate agent, no orphan, no lost canary, no wasted restart',
    async () => {
      const r = await execa(
        process.execPath,
        [
          HARNESS,
          '--runs',
          '4',
          '--concurrency',
          '4',
          '--night',
          '10',
          '--seed',
          '7',
          '--disk-every',
          '12',
          '--stop-share',
          '0',
          '--json',
        ],
        { reject: false, timeout: 150_000 },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout), r.stderr).toEqual({
        runNights: 4,
        doneWithReport: 4,
        duplicates: 0,
        orphans: 0,
        lost: 0,
        wastedRestarts: 0,
      });
    },
    180_000,
  );
});
