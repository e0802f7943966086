import { appendFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// Issue 17, as the attacker would do it: files of a run rewritten with hostile values. Status and
// the digest show that run as a broken file (or skip the values) and go on with every other run;
// nothing crashes or loops.

interface Row {
  id: string;
  state: string;
  reason: string;
  problem?: string;
}

describe('hostile records of one run', () => {
  it('final.json {} is a broken-file row naming its path; status, status <run> and digest go on', async ({
    sb,
  }) => {
    sb.setBehaviour({ report: true });
    const hit = await sb.launch('Survey CRDT libraries', ['--name', 'hit']);
    const final = sb.state(hit.id, 'final.json');
    await waitFor(() => sb.read(final), { what: 'the finished run summed up' });
    await sb.quiesce();
    sb.setBehaviour({ work: 120 });
    const other = await sb.launch('Benchmark sync under loss', ['--name', 'other', '--duration', '1h']);
    await sb.agentPid(other.id);

    writeFileSync(final, '{}\n');
    // One event beyond any session, one from 1970, one from 9999: skipped, never looped over.
    const events = sb.state(hit.id, 'events.jsonl');
    appendFileSync(
      events,
      JSON.stringify({ at: '2026-11-21T23:30:00.000Z', action: 'start', session: 2 ** 53 - 1 }) + '\n',
    );
    appendFileSync(
      events,
      JSON.stringify({ at: '1970-01-01T00:00:00.000Z', action: 'wait', until: '9999-12-31T00:00:00.000Z' }) +
        '\n',
    );
    appendFileSync(events, JSON.stringify({ at: '9999-12-31T00:00:00.000Z', action: 'pause' }) + '\n');

    const rows = await sb.status<Row>();
    const broken = rows.find((x) => x.id === hit.id);
    expect(broken?.problem).toContain(final);
    expect(broken?.state).toBe('done');
    expect(rows.find((x) => x.id === other.id)?.state).toBe('running');

    const one = await sb.run(['status', hit.id]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stdout).toContain('final.json');

    const digest = await sb.run(['digest', '--since', '24h']);
    expect(digest.exitCode, digest.stderr).toBe(0);
    expect(digest.stdout).toContain(other.id);
    const page = join(sb.dir, 'digest.html');
    const html = await sb.run(['digest', '--since', '24h', '--html', page]);
    expect(html.exitCode, html.stderr).toBe(0);
    expect(statSync(page).size).toBeLessThan(2 * 1024 * 1024);
  });
});
