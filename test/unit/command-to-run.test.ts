import { expect, test } from 'vitest';

import { commandToRun } from '../../src/app/io.js';

// Hints name the command the way it was run: under npx, by the name npx was given.

test.each<{ name: string; env: NodeJS.ProcessEnv; want: string }>([
  { name: 'on the PATH', env: {}, want: 'overnight' },
  { name: 'a script of another command', env: { npm_lifecycle_event: 'test' }, want: 'overnight' },
  {
    name: 'npx overnight',
    env: { npm_command: 'exec', npm_lifecycle_event: 'npx', npm_lifecycle_script: "'overnight'" },
    want: 'npx overnight',
  },
  {
    name: 'npx overnight-agent',
    env: { npm_command: 'exec', npm_lifecycle_event: 'npx', npm_lifecycle_script: 'overnight-agent' },
    want: 'npx overnight-agent',
  },
  {
    name: 'a pinned version',
    env: { npm_command: 'exec', npm_lifecycle_script: "'overnight-agent@0.1.0' status" },
    want: 'npx overnight-agent@0.1.0',
  },
  {
    name: 'npx without a script named: the command',
    env: { npm_command: 'exec' },
    want: 'npx overnight',
  },
  {
    name: 'a script that is not this command (a wrapper): the command',
    env: { npm_lifecycle_event: 'npx', npm_lifecycle_script: "'sh' -c 'rm -rf /'" },
    want: 'npx overnight',
  },
])('$name → $want', ({ env, want }) => {
  expect(commandToRun(env)).toBe(want);
});
