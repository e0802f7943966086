// Real git repositories for repository runs: made in a sandbox, and how a person's checkout
// looked, to prove it untouched.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

/** git in `cwd`, failing loudly; stdout without its final newline. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const r = await execa('git', args, {
    cwd,
    stdin: 'ignore',
    env: { GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0' },
  });
  return String(r.stdout);
}

export const PROJECT_RULES = '# Project rules\n\nRun the tests with `npm test`.\n';

/**
 * A repository with one commit on `main` (CLAUDE.md, .claude/settings.json, a source file), an
 * entry in its stash, an uncommitted change, an untracked file and a touched one: a person's
 * checkout mid-work.
 */
export async function makeRepo(dir: string): Promise<string> {
  const repo = join(dir, 'proj');
  mkdirSync(join(repo, '.claude'), { recursive: true });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.name', 'Night Tester');
  await git(repo, 'config', 'user.email', 'night@example.com');
  writeFileSync(join(repo, 'CLAUDE.md'), PROJECT_RULES);
  writeFileSync(join(repo, '.claude', 'settings.json'), '{"permissions":{"allow":["Bash(npm test:*)"]}}\n');
  writeFileSync(join(repo, 'app.js'), 'console.log(1);\n');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'Initial commit');
  writeFileSync(join(repo, 'app.js'), 'console.log(2);\n');
  await git(repo, 'stash', 'push', '-q', '-m', 'work in progress');
  writeFileSync(join(repo, 'app.js'), 'console.log(3);\n');
  writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
  // Touched, not changed: a `git status` that may write would refresh the index for it.
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(repo, 'CLAUDE.md'), later, later);
  return repo;
}

/** What a person would notice changed in their checkout: HEAD, branch, status, stash, index. */
export async function checkoutState(repo: string) {
  return {
    head: await git(repo, 'rev-parse', 'HEAD'),
    branch: await git(repo, 'symbolic-ref', '--short', 'HEAD'),
    status: await git(repo, 'status', '--porcelain', '--untracked-files=all'),
    stash: await git(repo, 'stash', 'list'),
    index: createHash('sha256')
      .update(readFileSync(join(repo, '.git', 'index')))
      .digest('hex'),
    worktreeFiles: {
      app: readFileSync(join(repo, 'app.js'), 'utf8'),
      rules: readFileSync(join(repo, 'CLAUDE.md'), 'utf8'),
      notes: readFileSync(join(repo, 'notes.txt'), 'utf8'),
    },
  };
}
