import { expect, test } from 'vitest';

import { digestNeed } from '../../src/core/digest/summary.js';
import type { DigestRun } from '../../src/core/digest/types.js';
import { needCode } from '../../src/core/status/needs.js';
import type { TableRow } from '../../src/core/status/table.js';
import { tableRow } from './builders.js';

// Status and the digest are fed the same runs and must agree on which need the person, in the
// same order: both ask attention() from the codes, never from the words.

const ROWS: TableRow[] = [
  tableRow({ id: 'a', state: 'done', report: true, cause: 'report-written', reason: 'finished' }),
  tableRow({ id: 'b', state: 'failed', cause: 'refused-login', reason: 'authentication failed twice' }),
  tableRow({
    id: 'c',
    state: 'done',
    report: true,
    cause: 'report-written',
    verify: { verdict: 'not-verified' },
  }),
  tableRow({
    id: 'd',
    state: 'done',
    report: true,
    cause: 'report-written',
    verify: { verdict: 'unchanged' },
  }),
  tableRow({ id: 'e', state: 'done', report: false, cause: 'no-report', reason: 'no report' }),
  tableRow({ id: 'f', state: 'running', cause: 'working' }),
  tableRow({ id: 'g', state: 'done', report: true, cause: 'report-written', review: { verdict: 'reject' } }),
  tableRow({ id: 'h', state: 'waiting', cause: 'overage', onOverage: true }),
  tableRow({
    id: 'i',
    state: 'done',
    report: true,
    cause: 'report-written',
    verify: { verdict: 'verified' },
  }),
];

function digestRun(r: TableRow): DigestRun {
  return {
    id: r.id,
    task: r.task ?? null,
    state: r.state,
    reason: r.reason ?? '',
    costUsd: 0,
    startedAt: null,
    endsAt: null,
    workspace: `/runs/${r.id}`,
    report: r.report ? { path: `/runs/${r.id}/REPORT.md`, head: [] } : null,
    findings: 0,
    restarts: 0,
    maxRestarts: 5,
    timeline: [],
    questions: [],
    ...(r.cause ? { cause: r.cause } : {}),
    ...(r.onOverage ? { onOverage: true as const } : {}),
    ...(r.verify ? { verify: { verdict: r.verify.verdict, line: '' } } : {}),
    ...(r.review ? { review: { verdict: r.review.verdict, line: '' } } : {}),
  };
}

test('the same runs need the person on the dashboard and in the digest, in the same order', () => {
  const status = ROWS.filter((r) => needCode(r) !== null).map((r) => r.id);
  const digest = ROWS.map(digestRun)
    .filter((r) => digestNeed(r) !== null)
    .map((r) => r.id);
  expect(digest).toEqual(status);
  expect(status).toEqual(['b', 'c', 'd', 'e', 'g', 'h']);
});
