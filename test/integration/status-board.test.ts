/* eslint-disable no-control-regex -- colour sequences are what these tests look for */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import stringWidth from 'string-width';
import { describe, expect } from 'vitest';

import { BIN, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The morning dashboard over a failed, a finished and two live runs, one of them in an API retry
// storm: the summary, the order, --check, the story in --json, colour only on a terminal, the width.

const QUESTIONS =
  '\n## Which sync protocol?\n- Best guess: y-protocols\n- Priority: low\n' +
  '\n## Is offline-first required?\n- Best guess: yes\n- Priority: high\nAnswer: yes, always\n' +
  '\n## Which licence is acceptable?\n- Best guess: MIT\n- Priority: high\n';

/** `overnight <args>` on a pseudo-terminal of `cols` columns: what the terminal was sent. */
async function onTerminal(sb: Sandbox, args: string[], cols: number, env: Record<string, string> = {}) {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `stty cols ${cols} rows 50; ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const r = await execa('script', ['-qfec', command, '/dev/null'], {
    env: { ...sb.env, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
  });
  return String(r.stdout).replace(/\r/g, '');
}

async function night(sb: Sandbox) {
  sb.setBehaviour({ work: 0, exit: 1 });
  const failed = await sb.launch('Fail at once', [
    '--name',
    'broke',
    '--duration',
    '1h',
    '--max-restarts',
    '0',
  ]);
  await waitFor(() => sb.read(sb.ws(failed.id, 'FAILED')), { timeout: 20_000, what: 'FAILED' });

  sb.setBehaviour({ work: 0, report: true, questions: QUESTIONS, finding: 'yjs.md' });
  const done = await sb.launch('Survey CRDT libraries', ['--name', 'crdt', '--duration', '1h']);
  await waitFor(() => sb.read(sb.ws(done.id, 'DONE')), { timeout: 20_000, what: 'DONE' });

  sb.setBehaviour({ work: 120 });
  const live = await sb.launch(`A long task ${'with many words '.repeat(12)}`, ['--name', 'live']);
  await sb.agentPid(live.id);
  mkdirSync(join(live.workspace, 'findings'), { recursive: true });
  writeFileSync(join(live.workspace, 'findings', 'a.md'), '# a\n');
  appendFileSync(join(live.workspace, 'questions.md'), QUESTIONS);

  sb.setBehaviour({ retrying: { status: 429 } });
  const storm = await sb.launch('Keep retrying', ['--name', 'storm']);
  await sb.agentPid(storm.id);
  return { failed, done, live, storm };
}

describe('the morning dashboard', () => {
  it('summary, needs-you first, --check, the story in --json, colour only on a terminal, 100 columns', async ({
    sb,
  }) => {
    const { failed, done, live, storm } = await night(sb);

    const table = await sb.run(['status'], { env: { COLUMNS: '100' } });
    expect(table.exitCode, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toBe('4 runs · 2 running · 1 needs you · 1 failed · 1 done');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(100);
    const order = [failed, live, storm, done].map((r) => lines.findIndex((l) => l.startsWith(`${r.id} `)));
    expect(
      order.every((at, i) => at > 0 && (i === 0 || at > (order[i - 1] as number))),
      lines.join('\n'),
    ).toBe(true);
    expect(lines[order[0] as number]).toMatch(/failed/);
    expect(lines[(order[0] as number) + 1]).toMatch(/^ {2}└ needs you: circuit breaker/);
    await waitFor(
      async () =>
        /retrying the API: \d+ tries since \d\d:\d\d \(429 rate_limit\)/.test(
          (await sb.run(['status'])).stdout,
        ),
      { what: 'the retry storm on the dashboard' },
    );
    expect(table.stdout).not.toContain('\x1b');

    expect((await sb.run(['status', '--check'])).exitCode).toBe(1);
    expect((await sb.run(['status', '--check', 'crdt'])).exitCode).toBe(0);

    const [row] = await sb.status<{
      timeline: { at: string; kind: string }[];
      questions: { title: string; priority: string; answered: boolean }[];
    }>(['crdt']);
    expect(row?.timeline.map((e) => e.kind)).toEqual(['session', 'finish']);
    expect(row?.questions).toEqual([
      expect.objectContaining({ title: 'Which licence is acceptable?', priority: 'high', answered: false }),
      expect.objectContaining({ title: 'Which sync protocol?', priority: 'low', answered: false }),
      expect.objectContaining({ title: 'Is offline-first required?', priority: 'high', answered: true }),
    ]);

    const story = await sb.run(['status', 'crdt']);
    expect(story.stdout).toMatch(/^finished: {3}\w{3} \d+ \w{3} \d{4}, \d\d:\d\d .*, after \d+s$/m);
    expect(story.stdout).toMatch(/^questions: {2}2 open questions in .*questions\.md \(1 answered\)$/m);
    expect(story.stdout).toMatch(
      /^ {12}\[high\] Which licence is acceptable\?\n {12}\[low\] Which sync protocol\?$/m,
    );
    expect(story.stdout).toMatch(
      /^findings: {3}1 file in .*findings\/, the newest:\n {12}yjs\.md \(\d\d:\d\d\)$/m,
    );
    expect(story.stdout).toMatch(
      /^the night:\n {2}\d\d:\d\d:\d\d {2}session 1 started → .*ended its turn\n {2}.*DONE: finished/m,
    );

    const coloured = await onTerminal(sb, ['status'], 100);
    expect(coloured).toMatch(/\x1b\[31;1mfailed/);
    expect(coloured).toMatch(/\x1b\[32mrunning/);
    for (const line of coloured.replace(/\x1b\[[\d;]*m/g, '').split('\n'))
      expect(stringWidth(line), line).toBeLessThanOrEqual(100);
    expect(await onTerminal(sb, ['status'], 100, { NO_COLOR: '1' })).not.toContain('\x1b[');
    expect(await onTerminal(sb, ['status', '--no-color'], 100)).not.toContain('\x1b[');
    const wide = await onTerminal(sb, ['status', '--wide'], 100);
    // The task's whole first line (a headline of 100 characters) is kept, wider than the terminal.
    const longest = Math.max(
      ...wide
        .replace(/\x1b\[[\d;]*m/g, '')
        .split('\n')
        .map((l) => stringWidth(l)),
    );
    expect(longest).toBeGreaterThan(100);
    expect(wide).toContain('with many words '.repeat(5));
  });
});
