import { existsSync, lstatSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { runId } from '../../src/core/run/naming.js';
import { rootPaths, runPaths } from '../../src/core/run/paths.js';
import { it } from '../helpers/sandbox.js';

// What killed writers and strays leave behind: temp files swept by a pass (overnight's own names,
// old enough, in its own directories), and a path taken by a stray that a new run avoids.

function plant(path: string, ageMs: number): void {
  writeFileSync(path, 'partial');
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
}

describe('leftovers', () => {
  it('passes sweep old temp files of overnight’s own names from its own directories only', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const run = await sb.launch('Survey CRDT libraries', []);
    const state = runPaths(sb.runs, run.id).state;
    const notify = rootPaths(sb.runs).notify;
    mkdirSync(notify, { recursive: true });
    const old = [
      join(state, '.events.jsonl.4242.0.tmp'),
      join(state, 'agent-1.exit.tmp.4242'),
      join(sb.runs, '..heartbeat.json.4242.3.tmp'),
      join(notify, '.new-4242-0.tmp'),
    ];
    const kept = [
      join(state, '.events.jsonl.4243.0.tmp'), // fresh: its writer may be at work
      join(state, 'notes.tmp'), // not a name overnight gives
      join(run.workspace, '.report.md.4242.0.tmp'), // the agent's directory, not overnight's
    ];
    for (const f of old) plant(f, 5 * 60_000);
    plant(kept[0] as string, 0);
    plant(kept[1] as string, 5 * 60_000);
    plant(kept[2] as string, 5 * 60_000);

    // Overnight's directories (the root's own, an entry per run, and each live run's records) are
    // listed at most once an hour: a pass just after one that did leaves their temps; one an hour
    // later sweeps them.
    const stamp = rootPaths(sb.runs).swept;
    plant(stamp, 0);
    const soon = await sb.run(['reconcile']);
    expect(soon.exitCode, soon.stderr).toBe(0);
    for (const f of old) expect(existsSync(f), f).toBe(true);
    plant(stamp, 61 * 60_000);
    const pass = await sb.run(['reconcile']);
    expect(pass.exitCode, pass.stderr).toBe(0);
    for (const f of old) expect(existsSync(f), f).toBe(false);
    for (const f of kept) expect(existsSync(f), f).toBe(true);
    expect((await sb.run(['stop', run.id])).exitCode).toBe(0);
  });

  it('a dangling link or a stray file at a new run’s path: the run gets another id', async ({ sb }) => {
    mkdirSync(sb.runs, { recursive: true, mode: 0o700 });
    // This minute's id and the next one's: launch may start on either side of a minute.
    const now = Date.now();
    const ids = [now, now + 60_000].map((t) => runId(new Date(t), 'survey-crdt-libraries'));
    for (const id of ids) {
      symlinkSync(join(sb.dir, 'nowhere'), join(sb.runs, id));
      writeFileSync(join(sb.runs, `${id}-2`), 'stray\n');
    }
    sb.setBehaviour({ work: 60 });
    const run = await sb.launch('Survey CRDT libraries', []);
    expect(ids.map((id) => `${id}-3`)).toContain(run.id);
    expect(lstatSync(run.workspace).isDirectory()).toBe(true);
    expect(lstatSync(join(sb.runs, ids[0] as string)).isSymbolicLink()).toBe(true);
    expect((await sb.run(['stop', run.id])).exitCode).toBe(0);
  });
});
