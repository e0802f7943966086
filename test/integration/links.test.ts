import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The agent links files of its run to files outside (a prompt-injected Write cannot make a link,
// but a Bash-enabled agent or anything else in the run's directory can): the digest, continue and
// notifications read only regular files inside the run, and never follow a link out.

const SECRET = 'SECRET-KEY-MATERIAL-5f3a';

/** A fake private key in the test's HOME, shaped so that every parser would show a line of it. */
function plantSecret(sb: Sandbox): string {
  const ssh = join(sb.home, '.ssh');
  mkdirSync(ssh, { recursive: true });
  const key = join(ssh, 'id_ed25519');
  writeFileSync(key, `# ${SECRET}\n\n## ${SECRET} question?\n- Best guess: ${SECRET}\n\n${SECRET}\n`);
  return key;
}

async function finishedRun(sb: Sandbox, task: string) {
  sb.setBehaviour({ finding: 'libs.md', report: true });
  const run = await sb.launch(task, []);
  await waitFor(() => existsSync(sb.state(run.id, 'final.json')), { what: `${run.id} finished` });
  await sb.quiesce();
  return run;
}

function relink(target: string, at: string): void {
  rmSync(at, { recursive: true, force: true });
  symlinkSync(target, at);
}

/** Every link below `dir`, relative to it. */
function linksBelow(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const name = rel ? `${rel}/${e.name}` : e.name;
    if (e.isSymbolicLink()) return [name];
    return e.isDirectory() ? linksBelow(dir, name) : [];
  });
}

describe('links out of a run', () => {
  it('the text and HTML digests and status never show a file a link points to', async ({ sb }) => {
    const key = plantSecret(sb);
    const run = await finishedRun(sb, 'Survey CRDT libraries');
    relink(key, join(run.workspace, 'REPORT.md'));
    relink(key, join(run.workspace, 'questions.md'));

    const text = await sb.run(['digest']);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toContain(run.id);
    expect(text.stdout + text.stderr).not.toContain(SECRET);

    const file = join(sb.dir, 'digest.html');
    const page = await sb.run(['digest', '--html', file]);
    expect(page.exitCode, page.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);

    const status = await sb.run(['status', run.id]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout + status.stderr).not.toContain(SECRET);

    // A report inside the run but reached through a linked directory is outside all the same.
    relink(join(sb.home, '.ssh'), join(run.workspace, 'findings'));
    expect((await sb.run(['digest'])).stdout).not.toContain(SECRET);
  });

  it('continue copies regular files only: no link recreated, no target copied, each one named', async ({
    sb,
  }) => {
    const key = plantSecret(sb);
    const first = await finishedRun(sb, 'Survey CRDT libraries');
    const findings = join(first.workspace, 'findings');
    symlinkSync(key, join(findings, 'leak.md'));
    symlinkSync(join(sb.home, '.ssh'), join(findings, 'keys'));
    mkdirSync(join(findings, 'deeper'));
    writeFileSync(join(findings, 'deeper', 'note.md'), 'a note\n');
    relink(key, join(first.workspace, 'questions.md'));
    relink(key, join(first.workspace, 'REPORT.md'));

    sb.setBehaviour({ work: 60 });
    const r = await sb.run(['continue', '--json', first.id, '--duration', '1h']);
    expect(r.exitCode, r.stderr).toBe(0);
    const next = JSON.parse(r.stdout) as { id: string; workspace: string };
    expect(r.stderr).toMatch(/not carried from .*never followed/);
    for (const name of ['questions.md', 'REPORT.md', 'findings/leak.md', 'findings/keys'])
      expect(r.stderr).toContain(name);

    // The regular findings came, bytes and all; nothing else did, and no link was made.
    expect(readFileSync(join(next.workspace, 'findings', 'libs.md'), 'utf8')).toBe(
      readFileSync(join(findings, 'libs.md'), 'utf8'),
    );
    expect(readFileSync(join(next.workspace, 'findings', 'deeper', 'note.md'), 'utf8')).toBe('a note\n');
    expect(existsSync(join(next.workspace, 'findings', 'leak.md'))).toBe(false);
    expect(existsSync(join(next.workspace, 'findings', 'keys'))).toBe(false);
    expect(existsSync(join(next.workspace, 'previous', 'REPORT.md'))).toBe(false);
    expect(lstatSync(join(next.workspace, 'questions.md')).isFile()).toBe(true);
    expect(linksBelow(next.workspace)).toEqual([]);
    const copied = readdirSync(next.workspace, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
    expect(copied.join('\n')).not.toContain(SECRET);
    expect((await sb.run(['stop', next.id])).exitCode).toBe(0);
  });
});
