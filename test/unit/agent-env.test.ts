import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

import {
  AGENT_ENV_HEADER,
  isAgentEnvFile,
  parseAgentEnv,
  renderAgentEnv,
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
