import { describe, expect, test } from 'vitest';

import { renderClaudeMd } from '../../src/core/agent/briefing.js';
import { specFromDoc, specToDoc } from '../../src/core/run/records.js';
import { spec } from './builders.js';

// `launch --verify`: recorded in run.yaml, told in the briefing; runs without it have none.

describe('the check in the spec', () => {
  test('round-trips through run.yaml', () => {
    const s = spec({ verify: { command: 'npm test', timeout: 1200, budget: 0 } });
    const doc = specToDoc(s);
    expect(doc.verify).toEqual({ command: 'npm test', timeout_seconds: 1200, budget_seconds: 0 });
    expect(specFromDoc(JSON.parse(JSON.stringify(doc))).verify).toEqual(s.verify);
  });

  test('a run without one has none', () => {
    const doc = specToDoc(spec());
    expect('verify' in doc).toBe(false);
    expect('verify' in specFromDoc(JSON.parse(JSON.stringify(doc)))).toBe(false);
  });

  test.each([
    [{ command: '', timeout_seconds: 5, budget_seconds: 0 }, 'verify.command'],
    [{ command: 'npm test', timeout_seconds: 0, budget_seconds: 0 }, 'verify.timeout_seconds'],
    [{ command: 'npm test', timeout_seconds: 5, budget_seconds: -1 }, 'verify.budget_seconds'],
    ['npm test', 'verify'],
  ])('a bad verify %j is refused', (verify, field) => {
    const doc = { ...JSON.parse(JSON.stringify(specToDoc(spec()))), verify };
    expect(() => specFromDoc(doc)).toThrow(field);
  });
});

describe('the briefing', () => {
  const base = { task: 't', startedAt: new Date(0), endsAt: new Date(3600_000) };
  test('names the command and says overnight runs it at the end', () => {
    const md = renderClaudeMd({ ...base, verify: { command: 'npm test' } });
    expect(md).toContain('## The check');
    expect(md).toContain('```sh\nnpm test\n```');
    expect(md).toMatch(/At the end time overnight itself runs this command/);
  });
  test('says nothing of a check when there is none', () => {
    expect(renderClaudeMd(base)).not.toContain('## The check');
  });
});
