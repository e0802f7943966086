import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';

import { git, makeRepo } from '../helpers/git.js';
import { records, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// `--repo ~/src/app/lib`: a directory inside a repository (a monorepo's package). The whole
// repository is branched; the agent starts in that directory of the worktree, and status says so.

describe('a run on a directory inside a repository', () => {
  it('starts the agent in that directory of the worktree, records it, and says so', async ({ sb }) => {
    const repo = await makeRepo(sb.dir);
    mkdirSync(join(repo, 'lib'));
    writeFileSync(join(repo, 'lib', 'index.js'), 'export {};\n');
    await git(repo, 'add', 'lib');
    await git(repo, 'commit', '-q', '-m', 'Add lib');
    sb.setBehaviour({ work: 60 });

    const r = await sb.run(['launch', '--json', '--repo', join(repo, 'lib'), '--duration', '1h', 'Fix lib']);
    expect(r.exitCode, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { id: string; workspace: string; worktree: string; subdir: string };
    expect(run.subdir).toBe('lib');
    const call = await waitFor(() => sb.calls()[0], { what: 'the agent' });
    expect(call.cwd).toBe(join(run.worktree, 'lib'));
    const yaml = parse(sb.read(join(records(run.workspace), 'run.yaml')) ?? '') as {
      repo: { path: string; subdir: string };
    };
    expect(yaml.repo).toMatchObject({ path: repo, subdir: 'lib' });

    const status = await sb.run(['status', run.id]);
    expect(status.stdout).toContain(`worktree:   ${run.worktree}`);
    expect(status.stdout).toMatch(/^works in: {3}lib \(the agent's directory in the worktree\)$/m);
    const [row] = JSON.parse((await sb.run(['status', '--json', run.id])).stdout) as { subdir?: string }[];
    expect(row?.subdir).toBe('lib');
    await sb.run(['stop', run.id]);
    await sb.quiesce();
  });

  it('refuses a directory the base commit does not have, naming it and the fix', async ({ sb }) => {
    const repo = await makeRepo(sb.dir);
    mkdirSync(join(repo, 'scratch'));
    const r = await sb.run(['launch', '--repo', join(repo, 'scratch'), 'Fix it']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /--repo .*scratch: the directory scratch is not in [0-9a-f]{12} \(HEAD\), so the run's worktree would not have it; commit it first/,
    );
    expect(sb.calls()).toEqual([]);
  });
});
