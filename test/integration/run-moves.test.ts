import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The runs root's indexes follow a run wherever it goes: a follow-up made by `continue` is live
// (and supervised) like a launched run; `archive` and `rm` take a run out of both; the digest
// picks its runs from them; nothing in the root whose name starts with '.' is ever a run.

/** A run that finishes at once with its report, summed up and out of `.live/`. */
async function finished(sb: Sandbox, task: string) {
  sb.setBehaviour({ report: true });
  const run = await sb.launch(task);
  await waitFor(() => existsSync(sb.state(run.id, 'final.json')), { what: `${run.id} finished` });
  await sb.quiesce();
  return run;
}

const live = (sb: Sandbox) => readdirSync(join(sb.runs, '.live'));
const finishedIndex = (sb: Sandbox) =>
  (sb.read(join(sb.runs, '.finished.jsonl')) ?? '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; removed?: boolean });
const ids = async (sb: Sandbox, ...args: string[]) =>
  (await sb.status<{ id: string }>(args)).map((r) => r.id);

describe('runs moving through the indexes', () => {
  it('a continued run is live: a pass supervises it (its crash is resumed) until it is done', async ({
    sb,
  }) => {
    const first = await finished(sb, 'First night');
    expect(live(sb)).toEqual([]);

    // Its first session crashes: only a pass that looks at it resumes it.
    sb.setBehaviour([{ exit: 1 }, { report: true }]);
    const r = await sb.run(['continue', '--json', first.id]);
    expect(r.exitCode, r.stderr).toBe(0);
    const next = JSON.parse(r.stdout) as { id: string };
    expect(live(sb)).toContain(next.id);

    await waitFor(() => existsSync(sb.state(next.id, 'final.json')), {
      what: 'the follow-up resumed and finished',
    });
    await sb.quiesce();
    expect(sb.read(sb.ws(next.id, 'REPORT.md'))).toContain('All done');
    expect(sb.read(sb.state(next.id, 'restart.log'))).toMatch(/resume/);
    expect(live(sb)).toEqual([]);
    expect(finishedIndex(sb).map((e) => e.id)).toEqual([first.id, next.id]);
  });

  it('archive and rm take a run out of both indexes; status, the digest and passes follow', async ({
    sb,
  }) => {
    const kept = await finished(sb, 'Kept night');
    const archived = await finished(sb, 'Archived night');
    const removed = await finished(sb, 'Removed night');

    expect((await sb.run(['archive', archived.id])).exitCode).toBe(0);
    const rm = await sb.run(['rm', '--yes', removed.id]);
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect(finishedIndex(sb).filter((e) => e.removed)).toEqual([
      expect.objectContaining({ id: archived.id, removed: true }),
      expect.objectContaining({ id: removed.id, removed: true }),
    ]);
    // The table and the digest read the finished index: only the run still in the root is there.
    expect(await ids(sb, '--since', '1d')).toEqual([kept.id]);
    expect(await ids(sb, '--archived')).toEqual([archived.id]);
    const digest = (await sb.run(['digest'])).stdout;
    expect(digest).toContain(kept.id);
    expect(digest).not.toContain(archived.id);
    expect(digest).not.toContain(removed.id);

    // rm of an archived run: the archive keeps no index, and the root's stay as they are.
    expect((await sb.run(['rm', '--yes', archived.id])).exitCode).toBe(0);
    expect(existsSync(join(sb.runs, 'archive', '.live'))).toBe(false);
    // Rebuilt from the root, the indexes agree: the archive and the removed runs are in neither.
    rmSync(join(sb.runs, '.live'), { recursive: true });
    rmSync(join(sb.runs, '.finished.jsonl'));
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    expect(live(sb)).toEqual([]);
    expect(finishedIndex(sb).map((e) => e.id)).toEqual([kept.id]);
    expect(await ids(sb, '--since', '1d')).toEqual([kept.id]);
  });

  it('names starting with a dot are never runs, whatever they look like', async ({ sb }) => {
    const run = await finished(sb, 'A night');
    // Looks like a run id, but hidden: a half-removed run, or anything a person parks there.
    const hidden = join(sb.runs, `.${run.id}`);
    mkdirSync(hidden);
    writeFileSync(join(hidden, 'run.yaml'), 'not: a run\n');
    const pass = await sb.run(['reconcile', '--json']);
    expect(pass.exitCode, pass.stderr).toBe(0);
    expect(pass.stdout).not.toContain(`.${run.id}`);
    expect(await ids(sb)).toEqual([run.id]);
    expect((await sb.run(['digest'])).stdout).not.toContain(`.${run.id}`);
  });
});
