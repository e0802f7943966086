// The check runs code the night writes (its tests): confined like the agent's commands. A test file
// in the repository tries, during the baseline and the final check, to write outside the worktree,
// read overnight's records and a fake secret, and reach a loopback server; each attempt fails, and
// the check's verdict is still right. Without bubblewrap the check is refused at launch, unless
// the person lets it run unconfined.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { git } from '../helpers/git.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

const SECRET = 'FAKE-AWS-SECRET-51d7';

/** A test that tries each escape and prints what it got: attempts never fail the test itself. */
const HOSTILE = (p: { outside: string; records: string; secret: string; port: number }) => `
import test from 'node:test';
import { appendFileSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
const tryTo = (what, f) => { try { console.log('ESCAPE', what, JSON.stringify(String(f()).slice(0, 200))); } catch (e) { console.log('BLOCKED', what, e.code); } };
test('adds', () => {
  tryTo('write', () => appendFileSync(${JSON.stringify(p.outside)}, 'x'));
  tryTo('records', () => readFileSync(${JSON.stringify(p.records)}, 'utf8'));
  tryTo('secret', () => readFileSync(${JSON.stringify(p.secret)}, 'utf8'));
});
test('reaches nothing', async () => {
  await new Promise((done) => get('http://127.0.0.1:${p.port}/', () => { console.log('ESCAPE net'); done(); })
    .on('error', (e) => { console.log('BLOCKED net', e.code); done(); }));
});
`;

async function project(sb: Sandbox, port: number): Promise<string> {
  const repo = join(sb.dir, 'calc');
  mkdirSync(join(repo, 'test'), { recursive: true });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.name', 'Night Tester');
  await git(repo, 'config', 'user.email', 'night@example.com');
  const records = join(sb.runs, '.overnight');
  writeFileSync(
    join(repo, 'test', 'escape.test.mjs'),
    HOSTILE({
      outside: join(sb.dir, 'escaped.txt'),
      records: join(records, '.layout'),
      secret: join(sb.home, '.aws', 'credentials'),
      port,
    }),
  );
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'Tests');
  return repo;
}

describe("the check's own sandbox", () => {
  it('a test that tries to escape is blocked at the baseline and the final check; the verdict stands', async ({
    sb,
  }) => {
    mkdirSync(join(sb.home, '.aws'), { recursive: true });
    writeFileSync(join(sb.home, '.aws', 'credentials'), `${SECRET}\n`);
    let hits = 0;
    const server = createServer((_q, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const repo = await project(sb, (server.address() as AddressInfo).port);
      sb.setBehaviour({ work: 1, report: true, commit: 'Notes' });
      const run = await sb.launch('Tidy up', ['--repo', repo, '--verify', 'node --test', '--duration', '4s']);
      const done = await waitFor(
        async () => {
          await sb.run(['reconcile', '--retry-lock', '2000']);
          return sb.read(join(run.workspace, 'DONE'));
        },
        { timeout: 40_000, interval: 300, what: 'DONE' },
      );
      for (const step of ['baseline', 'final']) {
        const log = sb.read(sb.state(run.id, `check-${step}.log`)) ?? '';
        expect(log, step).toMatch(/BLOCKED write (EROFS|EACCES)/);
        expect(log, step).toMatch(/BLOCKED records ENOENT/);
        expect(log, step).toMatch(/BLOCKED secret ENOENT/);
        expect(log, step).toMatch(/BLOCKED net/);
        expect(log, step).not.toContain('ESCAPE');
        expect(log, step).not.toContain(SECRET);
      }
      expect(existsSync(join(sb.dir, 'escaped.txt'))).toBe(false);
      expect(hits).toBe(0);
      // Blocked attempts are no failures of the night: both tests pass, before and after.
      expect(done).toMatch(/verified: 2 passed/);
    } finally {
      server.close();
    }
  });

  it('without bubblewrap a check is refused at launch, and runs unconfined only when the person says so', async ({
    sb,
  }) => {
    const repo = await project(sb, 9);
    // A PATH without bubblewrap (every other command as usual).
    const bin = join(sb.dir, 'bin-without-bwrap');
    mkdirSync(bin);
    const { readdirSync, symlinkSync } = await import('node:fs');
    for (const dir of (process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/')))
      for (const name of existsSync(dir) ? readdirSync(dir) : [])
        if (name !== 'bwrap' && !existsSync(join(bin, name))) symlinkSync(join(dir, name), join(bin, name));
    const env = { PATH: bin };
    const refused = await sb.run(['launch', '--repo', repo, '--verify', 'node --test', 'Tidy up'], { env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /--verify runs code the night writes .* bubblewrap \(bwrap\) not found on PATH/,
    );
    expect(refused.stderr).toMatch(/verify_unconfined: true \(--verify-unconfined\)/);
    sb.setBehaviour({ work: 30 });
    const ok = await sb.run(
      ['launch', '--json', '--repo', repo, '--verify', 'node --test', '--verify-unconfined', 'Tidy up'],
      { env },
    );
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(
      /note: no sandbox here \(bubblewrap \(bwrap\) not found on PATH\), so the agent gets no Bash/,
    );
    expect(ok.stderr).toMatch(/note: the check runs unconfined \(verify_unconfined\)/);
    const id = (JSON.parse(ok.stdout) as { id: string }).id;
    expect(sb.read(sb.state(id, 'run.yaml'))).toMatch(/unconfined: true/);
    expect(sb.read(sb.state(id, 'run.yaml'))).not.toMatch(/^sandbox:/m);
    const doctor = await sb.run(['doctor'], { env });
    expect(doctor.stdout).toMatch(/sandbox +no sandbox: bubblewrap \(bwrap\) not found on PATH/);
  });

  it("without a sandbox, a repository run's agent has no Bash, and overnight commits what each session left", async ({
    sb,
  }) => {
    const repo = await project(sb, 9);
    sb.setBehaviour([{ plant: { 'feature.txt': "the night's work\n" }, work: 2, exit: 1 }, { work: 30 }]);
    const run = await sb.launch('Add a feature', ['--repo', repo, '--no-sandbox']);
    const worktree = join(sb.runs, 'worktrees', run.id);
    // What Claude Code's sandbox leaves where it guards a path: empty and read-only, never work.
    writeFileSync(join(worktree, '.bashrc'), '', { mode: 0o444 });
    const calls = await waitFor(() => (sb.calls().length >= 2 ? sb.calls() : null), {
      what: 'the resumed session',
    });
    expect(calls[0]?.argv.slice(calls[0].argv.indexOf('--allowedTools'))).toEqual([
      '--allowedTools',
      'Read',
      'Glob',
      'Grep',
      'WebSearch',
      'WebFetch',
    ]);
    const log = await git(repo, 'log', '--format=%s', `overnight/${run.id}`);
    expect(log.split('\n')[0]).toBe("overnight: the agent's work in session 1, committed for it");
    expect(await git(repo, 'show', '--name-only', '--format=', `overnight/${run.id}`)).toBe('feature.txt');
    expect(sb.read(sb.state(run.id, 'events.jsonl'))).toMatch(
      /"action":"commit","session":1,"commit":"[0-9a-f]{40}","files":1/,
    );
  });
});
