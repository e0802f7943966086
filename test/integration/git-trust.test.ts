import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';
import { parse, stringify } from 'yaml';

import { runPaths } from '../../src/core/run/paths.js';
import { git, makeRepo } from '../helpers/git.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The worktree is the agent's to write: a `.git` it plants there must not make git run its
// commands, and rm must delete nothing but the worktree overnight made, through git.

interface RepoLaunch {
  id: string;
  workspace: string;
  worktree: string;
  branch: string;
}

async function finishedRepoRun(
  sb: Sandbox,
  made?: string,
  task = 'Change a thing',
): Promise<{ run: RepoLaunch; repo: string }> {
  const repo = made ?? (await makeRepo(sb.dir));
  sb.setBehaviour([{ commit: 'A change', report: true }]);
  const r = await sb.run(['launch', '--json', '--repo', repo, '--duration', '1h', task]);
  expect(r.exitCode, r.stderr).toBe(0);
  const run = JSON.parse(r.stdout) as RepoLaunch;
  await waitFor(() => sb.read(join(run.workspace, 'DONE')), { timeout: 30_000, what: 'DONE' });
  await sb.quiesce();
  return { run, repo };
}

/** A repository whose config runs `touch <marker>` as its fsmonitor hook. */
async function hostileRepo(dir: string, marker: string): Promise<string> {
  const evil = join(dir, 'evil');
  mkdirSync(evil, { recursive: true });
  await git(evil, 'init', '-q');
  const hook = join(dir, 'hook.sh');
  writeFileSync(hook, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(hook, 0o755);
  await git(evil, 'config', 'core.fsmonitor', hook);
  return join(evil, '.git');
}

describe('git in a worktree the agent wrote', () => {
  it('records the git dir at launch; a hostile .git file or dir runs nothing on status, rm leaves what git cannot remove', async ({
    sb,
  }) => {
    const { run, repo } = await finishedRepoRun(sb);
    const spec = parse(readFileSync(runPaths(sb.runs, run.id).runYaml, 'utf8')) as {
      repo: { git_dir: string };
    };
    expect(spec.repo.git_dir).toMatch(/\/\.git\/worktrees\/[^/]+$/);

    const marker = join(sb.dir, 'pwned');
    const evilGitDir = await hostileRepo(sb.dir, marker);
    const dotGit = join(run.worktree, '.git');
    writeFileSync(dotGit, `gitdir: ${evilGitDir}\n`);
    // The attack is real: plain git in the worktree runs the hook.
    await execa('git', ['status'], { cwd: run.worktree, reject: false, env: { GIT_OPTIONAL_LOCKS: '0' } });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const status = await sb.run(['status', run.id]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('A change');
    expect(existsSync(marker)).toBe(false);

    // A .git directory of the agent's own, config and all.
    rmSync(dotGit);
    await execa('cp', ['-r', evilGitDir, dotGit]);
    expect((await sb.run(['status', run.id])).exitCode).toBe(0);
    expect((await sb.run(['status'])).exitCode).toBe(0);
    expect(existsSync(marker)).toBe(false);

    // git refuses a worktree whose .git is not its own: it is left, and the person told how.
    const rm = await sb.run(['rm', run.id, '--yes']);
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(rm.stderr).toMatch(/left as it is/);
    expect(rm.stderr).toContain(`worktree remove --force ${run.worktree}`);
    expect(existsSync(run.worktree)).toBe(true);
    expect(existsSync(run.workspace)).toBe(false);
    expect(await git(repo, 'rev-parse', '--verify', run.branch)).toMatch(/^[0-9a-f]{40}$/);
  });

  it('rm removes the worktree it made through git, and never a directory the run record was edited to name', async ({
    sb,
  }) => {
    const { run, repo } = await finishedRepoRun(sb);
    const victim = join(sb.dir, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'keep.txt'), 'mine\n');
    const yamlPath = runPaths(sb.runs, run.id).runYaml;
    const doc = parse(readFileSync(yamlPath, 'utf8')) as { repo: { worktree: string } };
    doc.repo.worktree = victim;
    writeFileSync(yamlPath, stringify(doc));
    rmSync(runPaths(sb.runs, run.id).specCache, { force: true });

    const rm = await sb.run(['rm', run.id, '--yes']);
    expect(rm.exitCode, rm.stderr).toBe(0);
    expect(rm.stderr).toMatch(/not .* where overnight made it/);
    expect(readFileSync(join(victim, 'keep.txt'), 'utf8')).toBe('mine\n');
    expect(existsSync(run.workspace)).toBe(false);

    // Untampered: the worktree goes through git, which forgets it; the branch stays.
    const second = await finishedRepoRun(sb, repo, 'Change another thing');
    const r = await sb.run(['rm', second.run.id, '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(existsSync(second.run.worktree)).toBe(false);
    expect(await git(repo, 'worktree', 'list')).not.toContain(second.run.worktree);
  });
});
