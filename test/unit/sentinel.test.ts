import { describe, expect, test } from 'vitest';

import { parseSentinel, sentinelText } from '../../src/core/run/sentinel.js';
import type { Sentinel } from '../../src/core/run/types.js';

describe('DONE and FAILED: the reason for people, the code for tools', () => {
  test('written: the reason on one line, the cause on the next', () => {
    expect(sentinelText('circuit breaker: 5 restarts,\nlast exit 1', 'breaker')).toBe(
      'circuit breaker: 5 restarts, last exit 1\nbreaker\n',
    );
  });

  test.each<{ name: string; kind: Sentinel['kind']; text: string; want: Sentinel }>([
    {
      name: 'this version’s',
      kind: 'FAILED',
      text: 'circuit breaker: 5 restarts, last exit 1\nbreaker\n',
      want: { kind: 'FAILED', reason: 'circuit breaker: 5 restarts, last exit 1', cause: 'breaker' },
    },
    {
      name: 'written before codes: read from the reason',
      kind: 'DONE',
      text: 'stopped by user\n',
      want: { kind: 'DONE', reason: 'stopped by user', cause: 'stopped' },
    },
    {
      name: 'a code not in the list: read from the reason',
      kind: 'DONE',
      text: 'no report: the synthesis ended without writing REPORT.md (exit 1)\nconstructor\n',
      want: {
        kind: 'DONE',
        reason: 'no report: the synthesis ended without writing REPORT.md (exit 1)',
        cause: 'no-report',
      },
    },
    {
      name: 'empty',
      kind: 'FAILED',
      text: '',
      want: { kind: 'FAILED', reason: 'failed', cause: 'unknown' },
    },
  ])('read: $name', ({ kind, text, want }) => {
    expect(parseSentinel(kind, text)).toEqual(want);
  });
});
