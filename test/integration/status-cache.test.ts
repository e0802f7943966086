import { cpSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import type { Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// status over many finished runs takes their rows from one cache file (.overnight/.status-rows):
// what it shows is what the summaries and the runs' own files say, printed byte for byte as when
// they were first read, and what the person changes in a finished run (an answered question) is
// counted again once, then kept counted.

/** The cache's rows by run: its second line is the index, then the texts, each followed by `,\n`. */
function cachedRows(file: string): Record<string, Row> {
  const bytes = readFileSync(file);
  const first = bytes.indexOf(0x0a);
  const second = bytes.indexOf(0x0a, first + 1);
  const index = JSON.parse(bytes.toString('utf8', first + 1, second)) as { rows: [string, ...unknown[]][] };
  const rows: Record<string, Row> = {};
  let at = second + 1;
  for (const entry of index.rows) {
    const end = at + (entry[8] as number);
    rows[entry[0]] = JSON.parse(bytes.toString('utf8', at, end)) as Row;
    at = end + 2; // the comma and newline after each
  }
  return rows;
}

const COPIES = 40; // above CACHE_MIN_RUNS: the cache is used

interface Row {
  id: string;
  state: string;
  workspace: string;
  openQuestions: number;
}

/**
 * A finished run, and COPIES copies of it finished long ago (settled: they are cached); `edit`
 * changes each copy's summary, as an earlier version may have written it.
 */
async function finishedRuns(
  sb: Sandbox,
  edit: (summary: Record<string, unknown>, i: number) => Record<string, unknown> = (s) => s,
): Promise<string[]> {
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
    const summary = join(records, 'final.json');
    writeFileSync(
      summary,
      JSON.stringify(edit(JSON.parse(readFileSync(summary, 'utf8')) as Record<string, unknown>, i)),
    );
    // Settled: a records directory changed in the last seconds is not cached.
    utimesSync(records, hourAgo, hourAgo);
    ids.push(id);
  }
  return ids;
}

describe('status over many finished runs', () => {
  it('reads rows from the cache, and counts an answered question again once', async ({ sb }) => {
    const ids = await finishedRuns(sb);
    const rows = async () => (await sb.status<Row>(['--all'])).filter((r) => ids.includes(r.id));
    const printed = async () => (await sb.run(['status', '--json'])).stdout;
    const fresh = await printed();
    const first = await rows();
    expect(first).toHaveLength(COPIES);
    for (const r of first)
      expect(r).toMatchObject({ state: 'done', openQuestions: 1, workspace: sb.ws(r.id) });
    const cache = join(sb.runs, '.overnight', '.status-rows');
    expect(Object.keys(cachedRows(cache))).toEqual(expect.arrayContaining(ids));

    // Read from the cache, the rows are the same, and printed byte for byte as they were.
    expect(await rows()).toEqual(first);
    expect(await printed()).toBe(fresh);

    // The person answers in one run: it is counted again, and kept so in the cache.
    const answered = ids[7] as string;
    writeFileSync(
      sb.ws(answered, 'questions.md'),
      '# Questions\n\n## Which store?\n- Best guess: SQLite\nAnswer: SQLite is right\n',
    );
    const after = await rows();
    expect(after.find((r) => r.id === answered)?.openQuestions).toBe(0);
    expect(after.filter((r) => r.openQuestions === 1)).toHaveLength(COPIES - 1);
    expect(cachedRows(cache)[answered]?.openQuestions).toBe(0);
    const written = statSync(cache).mtimeMs;
    expect(await rows()).toEqual(after);
    expect(statSync(cache).mtimeMs).toBe(written);
  });

  it('prints the same bytes from the cache as made afresh, for earlier summaries too', async ({ sb }) => {
    // Half the summaries without the run's directory, as an earlier version wrote them.
    const ids = await finishedRuns(sb, (summary, i) => {
      if (i % 2 === 1) return summary;
      const { workspace: _gone, ...rest } = summary;
      return rest;
    });
    const printed = async () => (await sb.run(['status', '--json'])).stdout;
    const cache = join(sb.runs, '.overnight', '.status-rows');
    const fresh = await printed();
    expect(Object.keys(cachedRows(cache))).toEqual(expect.arrayContaining(ids));
    expect(await printed()).toBe(fresh);
    // A row counted again (a question answered) and cached anew is printed as one made afresh.
    for (const id of [ids[2], ids[3]] as string[])
      writeFileSync(sb.ws(id, 'questions.md'), '# Questions\n\n## Which store?\nAnswer: SQLite\n');
    const recounted = await printed();
    expect(await printed()).toBe(recounted);
    rmSync(cache);
    expect(await printed()).toBe(recounted);
    expect(JSON.parse(recounted)).toEqual(
      JSON.parse(fresh).map((r: Row) =>
        r.id === ids[2] || r.id === ids[3] ? { ...r, openQuestions: 0 } : r,
      ),
    );
  });
});
