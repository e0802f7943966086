// The agent's commands in Claude Code's sandbox, with the real CLI and overnight's defaults, against
// the mock API: tried as a prompt-injected agent would (write the person's ~/.bashrc, plant a file in
// overnight's records, `git log --output` outside the tree, an in-tree hook that writes outside,
// read a key and the records, reach a loopback server, leave a process behind), for a plain run
// and a repository run. Every attack fails inside the sandbox; real work (a write, a build, a
// commit) succeeds. Needs bubblewrap and socat, which CI installs.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';

import { git, makeRepo } from '../helpers/git.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { test as it } from '../helpers/sandbox.js';
import { reply, startMockApi, toolResults, type MessagesBody } from './mock-api.js';
import { assertClaudeInstalled, CLAUDE, cliEnv } from './real-cli.js';

interface Where {
  id: string;
  workspace: string;
  worktree?: string;
}

const KEY = 'FAKE-PRIVATE-KEY-9f2c';

/** A loopback server that counts the requests it gets. */
async function listener(): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_q, res) => {
    hits++;
    res.end('reached\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The agent runs each command with Bash, then writes its report; returns what each command printed. */
async function night(sb: Sandbox, commands: (w: Where) => string[], flags: string[]) {
  let where: Where = { id: '', workspace: '' };
  const api = await startMockApi((body: MessagesBody) => {
    const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
    const list = commands(where);
    const command = list[done];
    // `bg:` runs it as a background task of the session (the Bash tool's run_in_background).
    if (command !== undefined)
      return reply.toolUse('Bash', {
        command: command.replace(/^bg:/, ''),
        description: 'step',
        ...(command.startsWith('bg:') ? { run_in_background: true } : {}),
      });
    if (done === list.length) return reply.write(join(where.workspace, 'REPORT.md'), '# Report\n');
    return reply.text('Done.');
  });
  try {
    const env = {
      ...cliEnv(api.url, sb.home),
      PATH: process.env.PATH,
      OVERNIGHT_CLAUDE: CLAUDE,
      CLAUDE_CODE_OAUTH_TOKEN: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
    };
    const r = await sb.run(['launch', '--json', '--duration', '10m', ...flags, 'Try the walls'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    where = JSON.parse(r.stdout) as Where;
    await waitFor(() => sb.read(sb.state(where.id, 'DONE')), { timeout: 90_000, what: 'DONE' });
    await sb.quiesce();
    // What each Bash call printed, in order (the CLI sends them back as tool results).
    const outputs: string[] = [];
    for (const q of api.mainRequests()) {
      const results = toolResults(q.body);
      if (results.length > 0 && outputs.length < commands(where).length)
        outputs[(q.body?.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0) - 1] =
          JSON.stringify(results.at(-1)?.content ?? '');
    }
    return { where, outputs };
  } finally {
    await api.close();
  }
}

/** The attacks both kinds of run try, and the loopback server they try to reach. */
function attacks(sb: Sandbox, w: Where, port: number): string[] {
  const records = sb.state(w.id, 'run.yaml');
  const node = process.execPath;
  // One command each (a compound line is held to the CLI's own rules first): the sandbox answers.
  return [
    'echo pwned >> ~/.bashrc',
    `echo planted > ${sb.state(w.id, 'planted.sh')}`,
    'cat ~/.ssh/id_ed25519',
    `cat ${records}`,
    `${node} -e "require('http').get('http://127.0.0.1:${port}/',r=>console.log('STATUS',r.statusCode)).on('error',e=>console.log('NETERR',e.code))"`,
    'nohup sleep 607 > /dev/null 2>&1 & echo started',
  ];
}

function plantKey(sb: Sandbox): void {
  mkdirSync(join(sb.home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(sb.home, '.ssh', 'id_ed25519'), `${KEY}\n`, { mode: 0o600 });
}

async function sleepers(which: RegExp): Promise<string> {
  const r = await execa('ps', ['-eo', 'args'], { reject: false });
  return String(r.stdout)
    .split('\n')
    .filter((l) => which.test(l.trim()))
    .join('\n');
}

const sleepersLeft = () => sleepers(/^sleep 607$/);

function expectAttacksFailed(sb: Sandbox, w: Where, outputs: string[], server: { hits: () => number }) {
  expect(existsSync(join(sb.home, '.bashrc'))).toBe(false);
  expect(outputs[0]).toMatch(/Read-only file system/);
  expect(existsSync(sb.state(w.id, 'planted.sh'))).toBe(false);
  expect(outputs[2]).not.toContain(KEY);
  expect(outputs[3]).not.toMatch(/session_id|task:/);
  expect(outputs[1]).toMatch(/No such file or directory|Read-only file system/);
  expect(outputs[4]).toMatch(/NETERR/);
  expect(server.hits()).toBe(0);
}

describe("the agent's commands in the sandbox (real CLI, overnight's defaults)", () => {
  it('a plain run: Bash is given, and every attack fails; work in its directory succeeds', async ({ sb }) => {
    assertClaudeInstalled();
    plantKey(sb);
    const server = await listener();
    try {
      const { where, outputs } = await night(
        sb,
        (w) => [
          ...attacks(sb, w, server.port),
          'mkdir -p findings && echo ok > findings/inside.md && echo wrote',
        ],
        [],
      );
      const argv = sb.read(sb.state(where.id, 'claude-settings.json'));
      expect(JSON.parse(argv ?? '{}')).toMatchObject({
        sandbox: { enabled: true, allowUnsandboxedCommands: false },
      });
      expectAttacksFailed(sb, where, outputs, server);
      expect(outputs[6]).toMatch(/wrote/);
      expect(existsSync(join(where.workspace, 'findings', 'inside.md'))).toBe(true);
      // What the agent left running in the background ended with its session.
      expect(await sleepersLeft()).toBe('');
    } finally {
      await server.close();
    }
  });

  it('a repository run: git log --output and an in-tree hook stay inside; a build and a commit succeed', async ({
    sb,
  }) => {
    assertClaudeInstalled();
    plantKey(sb);
    const repo = await makeRepo(sb.dir);
    // The person's repository runs its hooks from the tree, as husky and friends set it up.
    mkdirSync(join(repo, '.githooks'));
    writeFileSync(join(repo, '.githooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    await git(repo, 'add', '.githooks');
    await git(repo, 'commit', '-q', '-m', 'hooks in the tree');
    await git(repo, 'config', 'core.hooksPath', '.githooks');
    const server = await listener();
    try {
      const { where, outputs } = await night(
        sb,
        (w) => [
          ...attacks(sb, w, server.port),
          `git log -1 --output=${join(sb.home, 'gitlog.txt')}`,
          "echo 'console.log(6 * 7)' > build.js && node build.js > built.txt && git add build.js built.txt && git commit -q -m build && echo committed",
          `printf '#!/bin/sh\\necho hooked > ${join(sb.home, 'hooked.txt')}\\nexit 0\\n' > .githooks/pre-commit`,
          'git commit -q -am hook',
        ],
        ['--repo', repo],
      );
      expectAttacksFailed(sb, where, outputs, server);
      expect(existsSync(join(sb.home, 'gitlog.txt'))).toBe(false);
      expect(outputs[6]).toMatch(/gitlog.txt' for writing: Read-only file system/);
      expect(outputs[7]).toMatch(/committed/);
      expect(await git(repo, 'log', '-1', '--format=%s', `overnight/${where.id}`)).not.toBe('Initial commit');
      expect(await git(repo, 'show', `overnight/${where.id}:built.txt`)).toBe('42');
      // The hook ran (the agent's own commit runs it) but only inside the sandbox: nothing outside.
      expect(outputs[9]).toMatch(/hooked.txt: Read-only file system/);
      expect(existsSync(join(sb.home, 'hooked.txt'))).toBe(false);
      expect(await sleepersLeft()).toBe('');
    } finally {
      await server.close();
    }
  });

  it('a background task keeps its session going; `stop` ends it with everything it started', async ({
    sb,
  }) => {
    assertClaudeInstalled();
    let id = '';
    const api = await startMockApi((body: MessagesBody) => {
      const done = (body.messages ?? []).reduce((n, m) => n + toolResults({ messages: [m] }).length, 0);
      if (done === 0)
        return reply.toolUse('Bash', {
          command: 'setsid sleep 609 & sleep 608',
          description: 'a watcher',
          run_in_background: true,
        });
      return reply.text('Waiting for the watcher.');
    });
    try {
      const env = { ...cliEnv(api.url, sb.home), PATH: process.env.PATH, OVERNIGHT_CLAUDE: CLAUDE };
      const r = await sb.run(['launch', '--json', '--duration', '10m', 'Start a watcher'], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      id = (JSON.parse(r.stdout) as Where).id;
      await waitFor(async () => /609/.test(await sleepers(/^sleep 60[89]$/)), {
        timeout: 60_000,
        what: 'the watcher',
      });
      const stop = await sb.run(['stop', id]);
      expect(stop.exitCode, stop.stderr).toBe(0);
      await waitFor(async () => (await sleepers(/^sleep 60[89]$/)) === '', {
        timeout: 20_000,
        what: 'nothing of the session left',
      });
    } finally {
      await api.close();
    }
  });
});
