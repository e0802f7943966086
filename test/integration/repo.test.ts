import { existsSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';

import { checkoutState, git, makeRepo, PROJECT_RULES } from '../helpers/git.js';
import { records, waitFor, type Call, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// Repository runs with real git and the fake agent, which commits in its working directory.

interface RepoLaunch {
  id: string;
  workspace: string;
  repo: string;
  branch: string;
  base: string;
  worktree: string;
}

const arg = (c: Call, flag: string) => (c.argv.includes(flag) ? c.argv[c.argv.indexOf(flag) + 1] : undefined);

async function launchOn(sb: Sandbox, repo: string, task: string, flags: string[] = []) {
  const r = await sb.run(['launch', '--json', '--repo', repo, ...flags, task]);
  expect(r.exitCode, r.stderr).toBe(0);
  return { run: JSON.parse(r.stdout) as RepoLaunch, stderr: r.stderr };
}

describe('a run on a repository', () => {
  it('works in a worktree on a branch of its own: commits there, resumes there, finishes with its report beside it; the checkout is untouched', async ({
    sb,
  }) => {
    const repo = await makeRepo(sb.dir);
    const before = await checkoutState(repo);
    const base = await git(repo, 'rev-parse', 'HEAD');
    // Session 1 commits and crashes; the resumed session works past the end time; the synthesis reports.
    sb.setBehaviour([
      { commit: 'Fix the flaky test', finding: 'flaky.md', exit: 1 },
      { work: 10 },
      { report: true },
    ]);
    const marker = 'fix-the-flaky-test-marker';
    // Time enough for session 1's commit and crash before the end time, on a loaded machine too.
    const { run, stderr } = await launchOn(sb, repo, `Fix the flaky tests (${marker})`, ['--duration', '8s']);
    expect(run).toMatchObject({ repo, base, branch: `overnight/${run.id}` });
    expect(run.worktree).toBe(join(sb.runs, 'worktrees', run.id));
    expect(stderr).toMatch(
      /^warning: .*proj has uncommitted changes \(2 paths\); they are not in the run's worktree/m,
    );

    const done = await waitFor(() => sb.read(join(run.workspace, 'DONE')), { timeout: 30_000, what: 'DONE' });
    await sb.quiesce();
    expect(done).toMatch(/REPORT\.md/);

    // Every session ran in the worktree, with the briefing appended from the run's directory.
    const calls = sb.calls();
    expect(calls.map((c) => (c.argv.includes('--resume') ? 'resume' : 'new'))).toEqual([
      'new',
      'resume',
      'resume',
    ]);
    const claudeMd = sb.read(join(run.workspace, 'CLAUDE.md')) as string;
    for (const c of calls) {
      expect(realpathSync(c.cwd)).toBe(realpathSync(run.worktree));
      expect(arg(c, '--append-system-prompt-file')).toBe(join(run.workspace, 'CLAUDE.md'));
      expect(arg(c, '--add-dir')).toBe(run.workspace);
      expect((c as Call & { appended: string }).appended).toBe(claudeMd);
      expect((c as Call & { runDir: string }).runDir).toBe(run.workspace);
      expect(c.argv.join(' ')).not.toContain(marker);
      expect(c.argv).not.toContain('Write');
    }
    expect(claudeMd).toContain(`Fix the flaky tests (${marker})`);
    expect(claudeMd).toContain(run.worktree);
    expect(calls[2]?.stdin).toContain(`Write ${run.workspace}/REPORT.md`);
    // The transcript was found beside the worktree: the crash was resumed, not started afresh.
    expect(sb.read(join(records(run.workspace), 'restart.log'))).toMatch(/\tresume\texit=1\t/);
    expect(sb.read(sb.state(run.id, 'events.jsonl'))).not.toContain('fresh-session');

    // The branch holds the agent's commit and nothing of overnight's.
    expect(await git(repo, 'log', '--format=%s', `${base}..${run.branch}`)).toBe('Fix the flaky test');
    expect((await git(repo, 'ls-tree', '-r', '--name-only', run.branch)).split('\n').sort()).toEqual([
      '.claude/settings.json',
      'CLAUDE.md',
      'app.js',
      'night-0.txt',
    ]);
    expect(await git(repo, 'show', `${run.branch}:CLAUDE.md`)).toBe(PROJECT_RULES.trimEnd());
    // The run's own files stayed in its directory.
    expect(existsSync(join(run.workspace, 'findings', 'flaky.md'))).toBe(true);
    expect(existsSync(join(run.workspace, 'REPORT.md'))).toBe(true);
    expect(existsSync(join(run.worktree, 'REPORT.md'))).toBe(false);

    // The person's checkout: HEAD, branch, status, stash, index and files exactly as they were.
    expect(await checkoutState(repo)).toEqual(before);
    // The worktree and the branch outlive the run.
    expect(existsSync(join(run.worktree, 'night-0.txt'))).toBe(true);
    expect(await git(repo, 'branch', '--list', run.branch)).toContain(run.branch);

    // status says what the night changed, and what the worktree holds that is not on the branch.
    writeFileSync(join(run.worktree, 'left-over.txt'), 'not committed\n');
    const details = await sb.run(['status', run.id]);
    expect(details.stdout).toContain(`worktree:   ${run.worktree} (1 uncommitted change, not on the branch)`);
    expect(details.stdout).toContain(`repo:       ${repo}`);
    expect(details.stdout).toContain(`branch:     ${run.branch} from ${base.slice(0, 12)}, 1 commit`);
    expect(details.stdout).toMatch(/^commits: {4}[0-9a-f]{12} Fix the flaky test$/m);
    expect(details.stdout).toMatch(/^changes: {4}1 file changed, 1 insertion\(\+\)$/m);
    const [row] = await sb.status();
    expect(row).toMatchObject({ repo, branch: run.branch, base, worktree: run.worktree });
    expect(row?.commits).toEqual([
      { sha: await git(repo, 'rev-parse', run.branch), subject: 'Fix the flaky test' },
    ]);
  });

  it('a worktree removed behind its back ends the run with the reason, not an agent in the wrong place', async ({
    sb,
  }) => {
    const repo = await makeRepo(sb.dir);
    sb.setBehaviour([{ hang: true }]);
    const { run } = await launchOn(sb, repo, 'Refactor the parser');
    const pid = await sb.agentPid(run.id);
    await git(repo, 'worktree', 'remove', '--force', run.worktree);
    process.kill(pid, 'SIGKILL');
    const failed = await waitFor(() => sb.read(join(run.workspace, 'FAILED')), { what: 'FAILED' });
    await sb.quiesce();
    expect(failed).toContain(`the worktree ${run.worktree} is gone (removed outside overnight)`);
    expect(failed).toContain(run.branch);
    expect(sb.calls()).toHaveLength(1);
  });
});

describe("a repository run's tools", () => {
  it('by default it has Bash in the sandbox, no git rule; without one no Bash; a chosen set is kept', async ({
    sb,
  }) => {
    const repo = await makeRepo(sb.dir);
    sb.setBehaviour({ work: 30 });
    const tools = (workspace: string) =>
      (parse(sb.read(join(records(workspace), 'run.yaml')) ?? '') as { allowed_tools: string[] })
        .allowed_tools;

    const plain = await launchOn(sb, repo, 'Default tools');
    // Bash confined by the sandbox: no rule for git (its options reach any file) is needed.
    expect(tools(plain.run.workspace)).toEqual(['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch', 'Bash']);
    const bare = await launchOn(sb, repo, 'No sandbox', ['--no-sandbox']);
    expect(tools(bare.run.workspace)).toEqual(['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch']);
    expect(bare.stderr).toMatch(/note: the sandbox is off .* committed by overnight after each session/);
    // The repository's .claude/settings.json is ignored by Claude Code until the repository is trusted.
    expect(plain.stderr).toContain(
      `warning: Claude Code ignores the permission rules in ${repo}/.claude/settings.json until the repository is trusted`,
    );

    writeFileSync(
      join(sb.home, '.claude.json'),
      JSON.stringify({ projects: { [repo]: { hasTrustDialogAccepted: true } } }),
    );
    const chosen = await launchOn(sb, repo, 'Chosen tools', [
      '--allowed-tools',
      'Read,Write',
      '--allowed-tools',
      'Bash(npm test:*)',
      '--permission-mode',
      'default',
    ]);
    expect(tools(chosen.run.workspace)).toEqual(['Read', 'Write', 'Bash(npm test:*)']);
    expect(sb.read(join(records(chosen.run.workspace), 'run.yaml'))).toContain('permission_mode: default');
    expect(chosen.stderr).not.toContain('.claude/settings.json');
    const call = await waitFor(() => sb.calls().find((c) => c.cwd.endsWith(chosen.run.id)));
    expect(call.argv.slice(call.argv.indexOf('--allowedTools'))).toEqual([
      '--allowedTools',
      'Read',
      'Write',
      'Bash(npm test:*)',
    ]);
    expect(arg(call, '--permission-mode')).toBe('default');
  });
});

describe('a repository run is refused with nothing created', () => {
  const refusals: { name: string; setup: (sb: Sandbox, repo: string) => Promise<string[]>; want: RegExp }[] =
    [
      {
        name: 'not a git repository',
        setup: async (sb) => {
          mkdirSync(join(sb.dir, 'plain'));
          return ['--repo', join(sb.dir, 'plain')];
        },
        want: /plain is not a git repository \(not a git repository.*\); give the directory of a git checkout$/,
      },
      {
        name: 'no such directory',
        setup: async (sb) => ['--repo', join(sb.dir, 'nowhere')],
        want: /nowhere: no such directory/,
      },
      {
        name: 'a bare repository',
        setup: async (sb) => {
          await git(sb.dir, 'init', '-q', '--bare', 'bare.git');
          return ['--repo', join(sb.dir, 'bare.git')];
        },
        want: /bare\.git is a bare repository .* give the directory of a clone with a working tree$/,
      },
      {
        name: 'a base that does not exist',
        setup: async (_sb, repo) => ['--repo', repo, '--base', 'no-such-ref'],
        want: /^overnight: --base no-such-ref names no commit in .*proj; give a branch, a tag or a commit hash$/,
      },
      {
        name: 'a branch that exists',
        setup: async (_sb, repo) => ['--repo', repo, '--branch', 'main'],
        want: /^overnight: --branch main already exists in .*proj; the run needs a new branch/,
      },
      {
        name: 'a branch name git refuses',
        setup: async (_sb, repo) => ['--repo', repo, '--branch', 'bad..name'],
        want: /^overnight: --branch bad\.\.name is not a valid git branch name/,
      },
      {
        name: '--base without --repo',
        setup: async () => ['--base', 'main'],
        want: /^overnight: --base and --branch are for a run on a repository: add --repo <path>$/,
      },
    ];

  it.for(refusals)(
    '$name → exit 2, one line, no run, no branch, no worktree',
    async ({ setup, want }, { sb }) => {
      const repo = await makeRepo(sb.dir);
      const before = await checkoutState(repo);
      const branches = await git(repo, 'branch', '--list');
      const r = await sb.run(['launch', ...(await setup(sb, repo)), 'Fix the flaky tests']);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(want);
      // At most the runs root made, marked as of the current layout: no run, no records of one.
      expect(existsSync(sb.runs) ? readdirSync(sb.runs) : []).toEqual(
        existsSync(sb.runs) ? ['.overnight'] : [],
      );
      if (existsSync(sb.runs)) expect(readdirSync(join(sb.runs, '.overnight'))).toEqual(['.layout']);
      expect(sb.calls()).toEqual([]);
      expect(await git(repo, 'branch', '--list')).toBe(branches);
      expect((await git(repo, 'worktree', 'list')).split('\n')).toHaveLength(1);
      expect(await checkoutState(repo)).toEqual(before);
    },
  );
});
