// The holes next to the sandbox, each tried as an attacker would (the agent in its own directory,
// or another local user), each closed at its root: the old-layout migration that took the agent's
// files into the records, a directory where overnight writes a view, a huge questions.md read
// whole, a tmux socket directory or a runs root another user made.
import { spawn } from 'node:child_process';
import {
  chownSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { runsHere } from '../helpers/ci.js';
import { alive, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

const ROOT = process.getuid?.() === 0;
const OTHER = 65534;
/** A run id as overnight makes them, for a directory no launch made. */
const PLANTED = '2026-01-01-0000-planted';

/** Passes run (as cron would) until the run is DONE; its text. */
async function untilDone(sb: Sandbox, id: string, timeout = 40_000): Promise<string> {
  return waitFor(
    async () => {
      await sb.run(['reconcile', '--retry-lock', '2000']);
      return sb.read(sb.state(id, 'DONE'));
    },
    { timeout, interval: 300, what: 'DONE' },
  );
}

describe('the old-layout migration never takes what the agent wrote', () => {
  it("records planted in a new root's run directory: not merged, not read, not acted on", async ({ sb }) => {
    // A process of the agent's choosing, which a planted pid record would have `stop` kill.
    const victim = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    victim.unref();
    try {
      const epoch = Math.floor(Date.now() / 1000);
      sb.setBehaviour({
        plant: {
          'run.yaml': 'id: planted\n',
          '.overnight/check-final.json': JSON.stringify({
            step: 'final',
            startedAt: new Date().toISOString(),
            tries: 1,
          }),
          '.overnight/check-final.exit': `0 ${epoch}\n`,
          '.overnight/check-final.log': '# pass 212\n# fail 0\n',
          '.overnight/agent-9.pid': `${victim.pid} 1\n`,
        },
        work: 2,
        report: true,
      });
      // The runs root is new: launch makes it (and marks it as of the current layout).
      const run = await sb.launch('Read a hostile page', ['--verify', 'false', '--duration', '3s']);
      // A run of the old layout planted beside it (an unconfined process's doing): in a root of
      // the current layout nothing is ever migrated, so it never becomes a run.
      mkdirSync(sb.ws(PLANTED, '.overnight'), { recursive: true });
      writeFileSync(sb.ws(PLANTED, 'run.yaml'), 'id: planted\n');
      writeFileSync(sb.ws(PLANTED, '.overnight', 'agent-1.pid'), `${victim.pid} 1\n`);
      const done = await untilDone(sb, run.id);
      expect(existsSync(sb.state(PLANTED, 'run.yaml'))).toBe(false);
      expect(done).not.toMatch(/verified: 212 passed/);
      expect(existsSync(sb.state(run.id, 'agent-9.pid'))).toBe(false);
      const status = await sb.run(['status', run.id]);
      expect(status.stdout).not.toMatch(/212 passed/);
      expect(alive(victim.pid ?? 0)).toBe(true);
    } finally {
      if (victim.pid) process.kill(victim.pid, 'SIGKILL');
    }
  });

  it('a run with records and old-layout files both is refused by name, never merged', async ({ sb }) => {
    sb.setBehaviour({ work: 30 });
    const run = await sb.launch('Work', ['--duration', '1h']);
    // As if the root had never been marked (an old root): the migration looks at every run.
    writeFileSync(join(sb.runs, '.overnight', '.layout'), '1\n');
    mkdirSync(join(run.workspace, '.overnight'));
    writeFileSync(join(run.workspace, '.overnight', 'DONE'), 'finished: planted\n');
    writeFileSync(join(run.workspace, 'run.yaml'), 'id: planted\n');
    const r = await sb.run(['status', run.id]);
    expect(r.stderr).toContain(`warning: ${run.workspace} holds run.yaml or .overnight/ of the old layout`);
    expect(r.stderr).toContain(`records in ${join(sb.runs, '.overnight', run.id)} already`);
    expect(existsSync(sb.state(run.id, 'DONE'))).toBe(false);
    expect(sb.read(sb.state(run.id, 'run.yaml'))).not.toContain('planted');
  });
});

describe('a view overnight writes where the agent made a directory', () => {
  it('the run alone is refused its view; passes go on for every run; status names the path', async ({
    sb,
  }) => {
    sb.setBehaviour({
      plant: { 'result.json/x': 'in the way', 'DONE/x': 'in the way' },
      work: 1,
      report: true,
    });
    const bad = await sb.launch('Make a mess', ['--duration', '2s']);
    // Its agent has read its behaviour (and planted) before the next run's is set.
    await waitFor(() => existsSync(join(bad.workspace, 'DONE', 'x')), { what: 'the planted directories' });
    sb.setBehaviour({ work: 1, report: true });
    const good = await sb.launch('Work', ['--duration', '2s']);
    await untilDone(sb, bad.id);
    await untilDone(sb, good.id);
    for (let i = 0; i < 3; i++) {
      const pass = await sb.run(['reconcile']);
      expect(pass.exitCode, pass.stderr).toBe(0);
    }
    expect(existsSync(join(good.workspace, 'result.json'))).toBe(true);
    const status = await sb.run(['status', bad.id]);
    expect(status.stdout).toContain(`${join(bad.workspace, 'result.json')} was not written`);
    expect(status.stdout).toContain(`${join(bad.workspace, 'DONE')} was not written`);
    expect(status.stdout).toMatch(/a directory is in its place/);
    const all = await sb.run(['status']);
    expect(all.stdout).not.toMatch(/nothing is supervised/i);
  });
});

describe("continue reads the agent's questions.md bounded", () => {
  it('a 3 MB questions.md is carried in part, and said so', async ({ sb }) => {
    sb.setBehaviour({ work: 1, report: true });
    const first = await sb.launch('Survey', ['--duration', '2s']);
    await untilDone(sb, first.id);
    writeFileSync(first.workspace + '/questions.md', `# Questions\n\n${'x'.repeat(3 * 1024 * 1024)}\n`);
    const next = await sb.run(['continue', '--json', first.id]);
    expect(next.exitCode, next.stderr).toBe(0);
    const id = (JSON.parse(next.stdout) as { id: string }).id;
    const carried = readFileSync(join(sb.runs, id, 'questions.md'));
    expect(carried.length).toBeLessThan(1.1 * 1024 * 1024);
    expect(carried.toString()).toContain('questions.md was larger than 1 MB');
  });
});

describe('directories another user made', () => {
  it.runIf(runsHere(ROOT))(
    "a tmux socket directory another user made: refused, the person's agent not started there",
    async ({ sb }) => {
      const dir = join(sb.env.TMUX_TMPDIR as string, `tmux-${process.getuid?.()}`);
      mkdirSync(dir, { mode: 0o777 });
      chownSync(dir, OTHER, OTHER);
      const r = await sb.run(['launch', '--backend', 'tmux', 'Survey']);
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(`the tmux socket directory ${dir} belongs to uid ${OTHER}, not to you`),
      );
      expect(existsSync(join(dir, 'overnight'))).toBe(false);
    },
  );

  it.runIf(runsHere(ROOT))(
    "a runs root that is another user's link: refused, never followed",
    async ({ sb }) => {
      const target = join(sb.dir, 'elsewhere');
      mkdirSync(target, { mode: 0o700 });
      symlinkSync(target, sb.runs);
      lchownSync(sb.runs, OTHER, OTHER);
      const r = await sb.run(['launch', 'Survey']);
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(`the runs root ${sb.runs} is a symbolic link made by uid ${OTHER}`),
      );
      expect(statSync(target).nlink).toBe(2);
    },
  );
});
