import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { records, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

interface Row {
  id: string;
  task: string | null;
  state: string;
  workspace: string;
  startedAt: string | null;
  endsAt: string | null;
  restarts: number;
  maxRestarts: number | null;
  findings: number;
  openQuestions: number;
  lastOutputAt: string | null;
  reason: string;
}

const FIELDS = [
  'id',
  'task',
  'state',
  'workspace',
  'startedAt',
  'endsAt',
  'restarts',
  'maxRestarts',
  'findings',
  'openQuestions',
  'lastOutputAt',
  'reason',
];
const isIso = (s: string | null) => typeof s === 'string' && new Date(s).toISOString() === s;

describe('status', () => {
  const rows = (sb: Sandbox, ...args: string[]): Promise<Row[]> => sb.status<Row>(args);

  it('shows a table and --json with every field, counting findings and open questions', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const { id, workspace } = await sb.launch('Count what I found', [
      '--duration',
      '1h',
      '--max-restarts',
      '4',
    ]);
    await sb.agentPid(id);
    // What the agent would write: two findings (one nested, plus a hidden file that does not
    // count) and three questions, one of them answered.
    mkdirSync(join(workspace, 'findings', 'deep'));
    writeFileSync(join(workspace, 'findings', 'yjs.md'), '# Yjs\n');
    writeFileSync(join(workspace, 'findings', 'deep', 'automerge.md'), '# Automerge\n');
    writeFileSync(join(workspace, 'findings', '.draft.swp'), '');
    appendFileSync(
      join(workspace, 'questions.md'),
      '\n## Which sync protocol?\n- Best guess: y-protocols\n- Priority: high\n' +
        '\n## Is offline-first required?\n- Best guess: yes\nAnswer: yes, always\n' +
        '\n## Which licence is acceptable?\n- Best guess: MIT\n- Priority: low\n',
    );

    const [json, ...more] = await rows(sb);
    expect(more).toEqual([]);
    for (const f of FIELDS) expect(json, f).toHaveProperty(f);
    expect(json).toMatchObject({
      id,
      task: 'Count what I found',
      state: 'running',
      workspace,
      restarts: 0,
      maxRestarts: 4,
      findings: 2,
      openQuestions: 2,
      reason: '',
    });
    expect([json?.startedAt, json?.endsAt, json?.lastOutputAt].every((t) => isIso(t ?? null))).toBe(true);
    expect(new Date(json?.endsAt ?? 0).getTime() - new Date(json?.startedAt ?? 0).getTime()).toBe(3600_000);

    const table = await sb.run(['status']);
    expect(table.exitCode, table.stderr).toBe(0);
    // Columns are found by their headers, so a column added later does not break this.
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('1 run · 1 running');
    const header = (lines[1] ?? '').split(/\s{2,}/);
    const row = (lines.find((l) => l.startsWith(id)) ?? '').split(/\s{2,}/);
    const cell = (name: string) => {
      expect(header, name).toContain(name);
      return row[header.indexOf(name)];
    };
    expect(header[0]).toBe('RUN');
    expect(cell('RUN')).toBe(id);
    expect(cell('STATE')).toBe('running');
    expect(cell('LEFT')).toMatch(/^(\d+[hms])+$/); // time left, e.g. 59m58s
    expect(cell('RESTARTS')).toBe('0/4');
    expect(cell('FINDINGS')).toBe('2');
    expect(cell('QUESTIONS')).toBe('2');
    expect(cell('ACTIVITY')).toMatch(/just now|ago/);
  });

  it('reports a run with a corrupt run.yaml (reason names the file) while the other runs are still reconciled', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const broken = await sb.launch('Broken run', ['--name', 'broken', '--duration', '1h']);
    const healthy = await sb.launch('Healthy run', ['--name', 'healthy', '--duration', '1h']);
    await sb.agentPid(broken.id);
    writeFileSync(join(records(broken.workspace), 'run.yaml'), 'task: [unclosed\n  : garbage ::\n');
    await sb.crashUnderLock(healthy.id);
    sb.releaseLock();

    const r = await sb.run(['reconcile']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${broken.id}: skipped: run\\.yaml`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^${healthy.id}: resumed`, 'm'));
    await sb.agentPid(healthy.id, 2);
    expect(sb.calls().filter((c) => c.cwd === healthy.workspace && c.argv.includes('--resume'))).toHaveLength(
      1,
    );
    expect(sb.calls().filter((c) => c.cwd === broken.workspace)).toHaveLength(1);

    const all = await rows(sb);
    const b = all.find((x) => x.id === broken.id);
    const h = all.find((x) => x.id === healthy.id);
    expect(b?.reason).toMatch(/run\.yaml/);
    expect(h).toMatchObject({ state: 'running', restarts: 1, reason: '' });

    // The human table says why too, not only the JSON.
    const table = await sb.run(['status']);
    expect(table.exitCode).toBe(0);
    const at = table.stdout.split('\n').findIndex((l) => l.startsWith(broken.id));
    expect(
      table.stdout
        .split('\n')
        .slice(at, at + 2)
        .join('\n'),
    ).toMatch(/run\.yaml/);
  });

  it('status <unique prefix> shows that run with its details block', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const one = await sb.launch('Show me the details', ['--name', 'details-one']);
    const other = await sb.launch('Another run', ['--name', 'other']);
    await sb.agentPid(one.id);
    const prefix = one.id.slice(0, -'ils-one'.length);

    const r = await sb.run(['status', prefix]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(one.id);
    expect(r.stdout).not.toContain(other.id);
    expect(r.stdout).toMatch(/^task:\s+Show me the details$/m);
    expect(r.stdout).toMatch(new RegExp(`^workspace:\\s+${one.workspace}$`, 'm'));
    expect(r.stdout).toMatch(/^ends:\s+\S+/m);
    expect(r.stdout).toMatch(/^activity:\s+\S+/m);
    expect(r.stdout).toMatch(new RegExp(`^watch:\\s+tmux -L overnight attach -t ${one.session}$`, 'm'));

    const [row, ...rest] = await rows(sb, prefix);
    expect(rest).toEqual([]);
    expect(row?.id).toBe(one.id);

    const unknown = await sb.run(['status', 'nosuchrun']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('nosuchrun');
    await waitFor(() => sb.hasSession(other.id));
  });

  it('status survey finds the run whose task begins "Survey…"; stop asks for its id; a miss says how to name a run', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const survey = await sb.launch('Survey CRDT libraries for offline sync', ['--duration', '1h']);
    const other = await sb.launch('Benchmark sync under packet loss', ['--duration', '1h']);
    await sb.agentPid(survey.id);

    const found = await sb.run(['status', 'survey']);
    expect(found.exitCode, found.stderr).toBe(0);
    expect(found.stdout).toMatch(/^task:\s+Survey CRDT libraries for offline sync$/m);
    expect(found.stderr).toContain(`note: taking ${survey.id}, the one run whose id has the words "survey"`);
    expect((await rows(sb, 'crdt libraries')).map((r) => r.id)).toEqual([survey.id]);
    expect((await sb.run(['logs', 'survey'])).exitCode).toBe(0);

    // Two runs' ids have "sync": listed, not guessed.
    const both = await sb.run(['status', 'sync']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain(`"sync" is in the ids of 2 runs (`);
    // Ending a run goes by its id, which the refusal gives.
    const stop = await sb.run(['stop', 'survey']);
    expect(stop.exitCode).toBe(2);
    expect(stop.stderr).toContain(`the one run whose id has those words is ${survey.id}`);
    expect(await sb.hasSession(survey.id)).toBe(true);

    const miss = await sb.run(['status', 'crdts']);
    expect(miss.exitCode).toBe(2);
    expect(miss.stderr).toContain(
      'a run is named by its id, the start of its id, the --name it was given, or words',
    );
    await waitFor(() => sb.hasSession(other.id));
  });

  it('a finished run keeps counting what the user changes: an answered question, an added finding', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Answer me', ['--duration', '1h']);
    await sb.agentPid(id);
    writeFileSync(sb.ws(id, 'questions.md'), '# Questions\n\n## Which store?\n- Best guess: SQLite\n');
    expect((await sb.run(['stop', id])).exitCode).toBe(0);
    const row = async () => (await sb.status<{ openQuestions: number; findings: number }>())[0];
    expect(await row()).toMatchObject({ openQuestions: 1, findings: 0 });
    writeFileSync(
      sb.ws(id, 'questions.md'),
      '# Questions\n\n## Which store?\n- Best guess: SQLite\nAnswer: SQLite is right\n',
    );
    writeFileSync(sb.ws(id, 'findings', 'late.md'), '# Added in the morning\n');
    expect(await row()).toMatchObject({ openQuestions: 0, findings: 1 });
  });
});
