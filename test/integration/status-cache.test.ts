import { cpSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { it } from '../helpers/sandbox.js';

// status over many finished runs takes their rows from one cache file (.overnight/.status-rows.json):
// what it shows is what the summaries and the runs' own files say, and what the person changes in
// a finished run (an answered question) is counted again once, then kept counted.

const COPIES = 40; // above CACHE_MIN_RUNS: the cache is used

interface Row {
  id: string;
  state: string;
  workspace: string;
  questions: number;
}

describe('status over many finished runs', () => {
  it('reads rows from the cache, and counts an answered question again once', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const { id: template } = await sb.launch('Answer me', ['--duration', '1h']);
    await sb.agentPid(template);
    writeFileSync(sb.ws(template, 'questions.md'), '# Questions\n\n## Which store?\n- Best guess: SQLite\n');
    expect((await sb.run(['stop', template])).exitCode).toBe(0);
    const ids: string[] = [];
    const hourAgo = new Date(Date.now() - 3600_000);
    for (let i = 0; i < COPIES; i++) {
      const id = `2024-06-01-00${String(i).padStart(2, '0')}-copy`;
      const records = join(sb.runs, '.overnight', id);
      cpSync(join(sb.runs, template), join(sb.runs, id), { recursive: true, preserveTimestamps: true });
      cpSync(join(sb.runs, '.overnight', template), records, { recursive: true, preserveTimestamps: true });
      for (const f of ['run.yaml', 'final.json']) {
        const path = join(records, f);
        writeFileSync(path, readFileSync(path, 'utf8').split(template).join(id));
      }
      // Settled: a records directory changed in the last seconds is not cached.
      utimesSync(records, hourAgo, hourAgo);
      ids.push(id);
    }
    const rows = async () => (await sb.status<Row>(['--all'])).filter((r) => ids.includes(r.id));
    const first = await rows();
    expect(first).toHaveLength(COPIES);
    for (const r of first) expect(r).toMatchObject({ state: 'done', questions: 1, workspace: sb.ws(r.id) });
    const cache = join(sb.runs, '.overnight', '.status-rows.json');
    const entries = () =>
      (JSON.parse(readFileSync(cache, 'utf8')) as { entries: Record<string, { row: Row }> }).entries;
    expect(Object.keys(entries())).toEqual(expect.arrayContaining(ids));

    // Read from the cache, the rows are the same.
    expect(await rows()).toEqual(first);

    // The person answers in one run: it is counted again, and kept so in the cache.
    const answered = ids[7] as string;
    writeFileSync(
      sb.ws(answered, 'questions.md'),
      '# Questions\n\n## Which store?\n- Best guess: SQLite\nAnswer: SQLite is right\n',
    );
    const after = await rows();
    expect(after.find((r) => r.id === answered)?.questions).toBe(0);
    expect(after.filter((r) => r.questions === 1)).toHaveLength(COPIES - 1);
    expect(entries()[answered]?.row.questions).toBe(0);
    const written = statSync(cache).mtimeMs;
    expect(await rows()).toEqual(after);
    expect(statSync(cache).mtimeMs).toBe(written);
  });
});
