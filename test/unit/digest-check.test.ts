import { describe, expect, test } from 'vitest';

import { digestHtml } from '../../src/core/digest/html.js';
import { digestText } from '../../src/core/digest/text.js';
import { localTime } from '../../src/core/local-time.js';
import { nightDigest } from './digest-night.js';

// The digest page shows a run's check beside its report: overnight's verdict line, escaped, and
// the verdict as a data attribute from a closed set only.

const UTC = localTime('UTC');

describe("the digest shows the check's result beside the report", () => {
  const night = nightDigest();
  const [first, ...rest] = night.runs;
  if (!first) throw new Error('no run in the night');

  test('the verdict line, right before the report', () => {
    const line =
      'NOT verified: 1 new failure: <img src=x onerror=alert(1)> (1 failure was there before the night)';
    const run = { ...first, verify: { verdict: 'not-verified', line } };
    const html = digestHtml({ ...night, runs: [run, ...rest] }, UTC);
    const check = html.indexOf(
      '<p class="check" data-verdict="not-verified">NOT verified: 1 new failure: &lt;img',
    );
    expect(check).toBeGreaterThan(0);
    expect(html).not.toContain('<img src=x');
    // Beside the report: the report's first line follows the check.
    expect(html.indexOf('CRDT libraries for offline sync', check)).toBeGreaterThan(check);
    expect(digestText({ ...night, runs: [run] }, UTC).join('\n')).toContain(
      'check:      NOT verified: 1 new failure',
    );
  });

  test('a verdict outside the closed set is none; a run without a check shows none', () => {
    const run = { ...first, verify: { verdict: 'verified" onclick="x', line: 'verified: 3 passed' } };
    expect(digestHtml({ ...night, runs: [run] }, UTC)).toContain('<p class="check" data-verdict="none">');
    expect(digestHtml({ ...night, runs: [first] }, UTC)).not.toContain('class="check"');
  });
});
