import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import {
  AGENT_ENV_HEADER,
  CLI_SETTINGS,
  isAgentEnvFile,
  parseAgentEnv,
  renderAgentEnv,
  runEnvironment,
} from '../../src/core/run/agent-env.js';

// The captured environment: every value reaches the agent exactly, nothing in it is evaluated.

describe('renderAgentEnv', () => {
  test.each<{ name: string; value: string }>([
    { name: 'plain', value: 'sk-ant-oat01-abc' },
    { name: 'empty', value: '' },
    { name: 'newlines', value: 'first\nsecond\n' },
    { name: 'single quotes', value: "it's 'quoted''" },
    { name: 'shell syntax', value: '$(touch x) `id` ${HOME} \\ " ; | & > <' },
    { name: 'export lines inside', value: "x'\nexport EVIL='1" },
    { name: 'non-ASCII', value: 'café ✓ 日本' },
  ])('$name → read back the same', ({ value }) => {
    const text = renderAgentEnv({ VALUE: value, OTHER: 'o' });
    expect(isAgentEnvFile(text)).toBe(true);
    expect(Object.fromEntries(parseAgentEnv(text))).toEqual({ VALUE: value, OTHER: 'o' });
    // Read back and written again, it is the same file: a restart rewrites nothing.
    expect(renderAgentEnv(Object.fromEntries(parseAgentEnv(text)))).toBe(text);
  });

  test.each<{ name: string; env: Record<string, string | undefined>; want: string[] }>([
    {
      name: "the terminal's own",
      env: { TMUX: 'x', PWD: '/', SHLVL: '2', COLUMNS: '80', KEEP: 'k' },
      want: ['KEEP'],
    },
    { name: 'read-only in a shell', env: { UID: '0', EUID: '0', PPID: '1', KEEP: 'k' }, want: ['KEEP'] },
    { name: 'names sh cannot carry', env: { 'A-B': 'x', '1X': 'y', KEEP: 'k' }, want: ['KEEP'] },
    { name: 'unset and NUL', env: { GONE: undefined, NUL: 'a\0b', KEEP: 'k' }, want: ['KEEP'] },
  ])('leaves out $name → $want', ({ env, want }) => {
    expect([...parseAgentEnv(renderAgentEnv(env)).keys()]).toEqual(want);
  });

  test('the header is the first line, and the wrapper sources only a file that starts with it', () => {
    expect(renderAgentEnv({}).split('\n')[0]).toBe(AGENT_ENV_HEADER);
    const wrapper = readFileSync(new URL('../../src/wrapper/agent.sh', import.meta.url), 'utf8');
    expect(wrapper).toContain(`header='${AGENT_ENV_HEADER}'`);
  });
});

describe('parseAgentEnv', () => {
  test('a file of an older version: NAME=value lines, read literally', () => {
    const old = 'PATH=/usr/bin:/bin\nTOKEN=a=b $(c)\nnot a variable\n';
    expect(isAgentEnvFile(old)).toBe(false);
    expect(Object.fromEntries(parseAgentEnv(old))).toEqual({ PATH: '/usr/bin:/bin', TOKEN: 'a=b $(c)' });
  });
});

describe('runEnvironment', () => {
  const RUN_DIR = '/home/me/overnight-runs/2026-11-21-2315-fix-tests';
  const GIT = { GIT_DIR: '/elsewhere/.git', GIT_WORK_TREE: '/elsewhere', GIT_INDEX_FILE: 'i' };
  test.each<{
    name: string;
    env: Record<string, string>;
    repo: boolean;
    tmp?: string;
    want: Record<string, string>;
  }>([
    {
      name: 'a plain run',
      env: { HOME: '/home/me', ...GIT },
      repo: false,
      want: { HOME: '/home/me', ...GIT, OVERNIGHT_RUN_DIR: RUN_DIR, ...CLI_SETTINGS },
    },
    {
      name: 'a repository run',
      env: {
        HOME: '/home/me',
        GIT_AUTHOR_NAME: 'Me',
        ...GIT,
        GIT_COMMON_DIR: 'c',
        GIT_OBJECT_DIRECTORY: 'o',
      },
      repo: true,
      want: { HOME: '/home/me', GIT_AUTHOR_NAME: 'Me', OVERNIGHT_RUN_DIR: RUN_DIR, ...CLI_SETTINGS },
    },
    {
      name: "launched from another run's agent",
      env: { OVERNIGHT_RUN_DIR: '/other/run' },
      repo: false,
      want: { OVERNIGHT_RUN_DIR: RUN_DIR, ...CLI_SETTINGS },
    },
    {
      name: "the person's retry watchdog: off for the agent, its tuning left out",
      env: {
        CLAUDE_CODE_RETRY_WATCHDOG: '1',
        CLAUDE_CODE_RETRY_WATCHDOG_MAX_USAGE_LIMIT_WAIT_MS: '21600000',
        CLAUDE_CODE_RETRY_WATCHDOG_SCOPE: 'capacity',
        CLAUDE_CODE_SUPERVISED: '0',
      },
      repo: false,
      want: {
        OVERNIGHT_RUN_DIR: RUN_DIR,
        CLAUDE_CODE_RETRY_WATCHDOG: '0',
        CLAUDE_CODE_SUPERVISED: '1',
        CLAUDE_CODE_STARTUP_FAILURE_RESULTS: '1',
      },
    },
    {
      name: 'a sandboxed run: a temp directory of its own, whatever the person had',
      env: { CLAUDE_CODE_TMPDIR: '/tmp' },
      repo: false,
      tmp: '/home/me/overnight-runs/.run-tmp/r',
      want: {
        OVERNIGHT_RUN_DIR: RUN_DIR,
        ...CLI_SETTINGS,
        CLAUDE_CODE_TMPDIR: '/home/me/overnight-runs/.run-tmp/r',
      },
    },
  ])('$name → the run directory, and no git variable pointing elsewhere for a repository', (row) => {
    expect(runEnvironment(row.env, RUN_DIR, row.repo, row.tmp ?? null)).toEqual(row.want);
  });
});
