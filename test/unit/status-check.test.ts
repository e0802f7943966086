import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { formatBoard } from '../../src/core/status/board.js';
import { checkDetails } from '../../src/core/status/check.js';
import type { TableRow } from '../../src/core/status/table.js';
import type { VerifyResult } from '../../src/core/verify/verdict.js';

// `status <run>`: the check's verdict, the failing tests (new first, bounded), the output's path.

const step = (failures: string[]) => ({
  passed: 3,
  failed: failures.length,
  failures,
  exit: failures.length ? 1 : 0,
  skipped: 0,
  state: 'exited',
});

function result(over: Partial<VerifyResult> = {}): VerifyResult {
  return {
    command: 'node --test',
    verdict: 'not-verified',
    baseline: step(['multiplies']),
    final: step(['multiplies', 'subtracts']),
    newFailures: ['subtracts'],
    newFailureCount: 1,
    basis: 'counts',
    accounting: null,
    commit: null,
    changedTests: [],
    output: '/runs/.overnight/r/check-final.log',
    ...over,
  };
}

describe('the check in status <run>', () => {
  test('the failing tests, new first, and the output', () => {
    expect(checkDetails(result(), 'done')).toEqual([
      'check:      NOT verified: 1 new failure: subtracts (1 failure was there before the night)',
      '  command:  node --test',
      '  failing:  subtracts (new)',
      '            multiplies (there before the night)',
      '  output:   /runs/.overnight/r/check-final.log',
    ]);
  });

  test('a bounded list', () => {
    const names = Array.from({ length: 14 }, (_, i) => `t${i}`);
    const lines = checkDetails(
      result({ final: step(names), newFailures: names, newFailureCount: 14 }),
      'done',
    );
    expect(lines.filter((l) => l.includes('(new)'))).toHaveLength(10);
    expect(lines).toContain('            … and 4 more');
  });

  test('a live run has no verdict yet; a run without a check shows nothing', () => {
    const pending = result({ verdict: 'error', final: null, newFailures: [], error: 'never ran' });
    expect(checkDetails(pending, 'running')[0]).toBe('check:      runs at the end time, before the report');
    expect(checkDetails(result(), 'verifying')[0]).toBe('check:      running now');
    expect(checkDetails(undefined, 'done')).toEqual([]);
    expect(checkDetails(result({ verdict: 'none' }), 'done')).toEqual([]);
  });

  test('the board marks a finished run only', () => {
    const row = (state: TableRow['state'], verdict: string): TableRow => ({
      id: `r-${state}`,
      state,
      startedAt: null,
      endsAt: null,
      restarts: 0,
      maxRestarts: 5,
      findings: 0,
      questions: 0,
      lastOutputAt: null,
      reason: '',
      verify: { verdict },
    });
    const opts = { width: null, colour: false, clock: localTime('UTC') };
    const text = formatBoard(
      [row('running', 'error'), row('done', 'verified'), row('failed', 'error')],
      new Date(),
      opts,
    ).join('\n');
    expect(text).toMatch(/r-running +running +/);
    expect(text).toMatch(/r-done +done ✓/);
    expect(text).toMatch(/r-failed +failed ✗/);
  });
});
