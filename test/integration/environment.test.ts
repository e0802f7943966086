import { realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { CLI_SETTINGS, NOT_CAPTURED } from '../../src/core/run/agent-env.js';
import { git, makeRepo } from '../helpers/git.js';
import { alive, waitFor, type Call, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The agent runs with exactly the environment captured at launch: nothing from the person's tmux
// server, nor from overnight's own, nor from whoever restarts it; and it lives on a tmux server of
// overnight's own that the person's `tmux ls` and `kill-server` never see.

/** Values a shell could mangle: a newline, quotes, command substitution, a backslash. */
const TRICKY = {
  MULTI_LINE: 'first line\nsecond line\n',
  QUOTED: `it's "quoted" $(touch /nonexistent/pwned) \`id\` \\ $HOME`,
  EMPTY_VALUE: '',
};

/**
 * What launch captured, as the agent must see it: the launching environment minus the terminal's,
 * plus the run's directory and the CLI settings overnight fixes.
 */
function expected(
  sb: Sandbox,
  id: string,
  extra: Record<string, string | undefined>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...sb.env, ...extra }))
    if (v !== undefined && !NOT_CAPTURED.has(k)) env[k] = v;
  // A run in the sandbox has a temp directory of its own.
  const sandboxed = /^sandbox:/m.test(sb.read(sb.state(id, 'run.yaml')) ?? '');
  const tmp: Record<string, string> = sandboxed ? { CLAUDE_CODE_TMPDIR: join(sb.runs, '.run-tmp', id) } : {};
  return { ...env, OVERNIGHT_RUN_DIR: sb.ws(id), ...CLI_SETTINGS, ...tmp };
}

/** The agent's environment, without what the shell that execs it sets for itself. */
function agentEnv(call: Call | undefined): Record<string, string> {
  const { PWD: _pwd, ...rest } = call?.env ?? {};
  return rest;
}

describe('the agent environment', () => {
  it('is exactly the one captured at launch, at launch and after a restart: no stray variable or old key from any tmux server', async ({
    sb,
  }) => {
    // The person's own server and an overnight server started days ago, both holding an old key.
    const old = { ANTHROPIC_API_KEY: 'sk-old-revoked', STRAY_FROM_TMUX: 'stray' };
    for (const server of [[], ['-L', 'overnight']]) {
      const r = await sb.personTmux([...server, 'new-session', '-d', '-s', 'mine', 'sleep', '600'], old);
      expect(r.exitCode, r.stderr).toBe(0);
      await sb.personTmux([...server, 'set-environment', '-g', 'STRAY_GLOBAL', 'global']);
    }
    sb.setBehaviour([{ work: 60 }]);
    const extra = { ...TRICKY, ANTHROPIC_API_KEY: undefined, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-now' };
    const { id } = await sb.launch('Use my environment', ['--duration', '1h'], extra);
    const want = expected(sb, id, extra);

    const first = await sb.agentPid(id);
    const firstCall = sb.calls().find((c) => c.pid === first);
    expect(agentEnv(firstCall)).toEqual(want);
    expect(firstCall?.env.PWD).toBe(sb.ws(id));

    process.kill(first, 'SIGKILL');
    const second = await sb.agentPid(id, 2);
    expect(agentEnv(sb.calls().find((c) => c.pid === second))).toEqual(want);
    expect(sb.read(sb.state(id, 'restart.log'))).toMatch(/\tresume\texit=137\t/);
    expect(existsNowhere('/nonexistent/pwned')).toBe(true);

    // The captured file: 0600, outside the workspace, gone once the run is.
    const file = `${sb.runs}/.agent-env/${id}.env`;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await sb.run(['stop', id])).exitCode).toBe(0);
    expect(sb.read(file)).toBeNull();
  });

  it('a run launched by an older version (NAME=value lines) is restarted with the same variables', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Older run', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    const file = `${sb.runs}/.agent-env/${id}.env`;
    // Written before OVERNIGHT_RUN_DIR existed too: the restart adds it.
    const { OVERNIGHT_RUN_DIR: runDir, ...before }: Record<string, string> = {
      ...expected(sb, id, {}),
      FROM_OLD_FORMAT: "a 'b' $(c)",
    };
    const lines = Object.entries(before).map(([k, v]) => `${k}=${v}\n`);
    writeFileSync(file, lines.join(''), { mode: 0o600 });
    process.kill(pid, 'SIGKILL');
    const second = await sb.agentPid(id, 2);
    expect(agentEnv(sb.calls().find((c) => c.pid === second))).toEqual({
      ...before,
      OVERNIGHT_RUN_DIR: runDir,
    });
    expect(sb.read(file)).toMatch(/^# overnight: /);
  });

  it("a repository run's agent has its run directory and no git variable pointing elsewhere, after a restart too", async ({
    sb,
  }) => {
    const repo = await makeRepo(sb.dir);
    const elsewhere = { GIT_DIR: `${sb.dir}/elsewhere/.git`, GIT_WORK_TREE: `${sb.dir}/elsewhere` };
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Fix the tests', ['--duration', '1h', '--repo', repo], elsewhere);
    const want = expected(sb, id, { GIT_DIR: undefined, GIT_WORK_TREE: undefined });
    const first = await sb.agentPid(id);
    const firstCall = sb.calls().find((c) => c.pid === first);
    expect(agentEnv(firstCall)).toEqual(want);
    expect(realpathSync(firstCall?.cwd ?? '')).toBe(realpathSync(`${sb.runs}/worktrees/${id}`));

    process.kill(first, 'SIGKILL');
    const second = await sb.agentPid(id, 2);
    expect(agentEnv(sb.calls().find((c) => c.pid === second))).toEqual(want);
    expect(await git(repo, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  });
});

describe("overnight's own tmux server", () => {
  it("the person's tmux ls never lists a run, and their kill-server never ends one", async ({ sb }) => {
    await sb.personTmux(['new-session', '-d', '-s', 'mine', 'sleep', '600']);
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Keep out of my tmux', ['--duration', '1h']);
    const pid = await sb.agentPid(id);
    expect((await sb.personTmux(['ls', '-F', '#{session_name}'])).stdout.trim()).toBe('mine');
    expect(await sb.hasSession(id)).toBe(true);

    await sb.personTmux(['kill-server']);
    await waitFor(async () => (await sb.personTmux(['ls'])).exitCode !== 0, { what: 'their server gone' });
    expect(alive(pid)).toBe(true);
    expect(await sb.hasSession(id)).toBe(true);
    const status = await sb.run(['status', id]);
    expect(status.stdout).toMatch(new RegExp(`^watch:\\s+tmux -L overnight attach -t overnight-${id}$`, 'm'));
  });
});

function existsNowhere(path: string): boolean {
  try {
    statSync(path);
    return false;
  } catch {
    return true;
  }
}
