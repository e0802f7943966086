import { describe, expect, it } from 'vitest';

import { widerGrants } from '../../src/core/agent/grants.js';
import { DEFAULT_ALLOWED_TOOLS } from '../../src/core/config/settings.js';
import { SANDBOXED_TOOLS } from '../../src/core/sandbox/choice.js';

describe('what a run grants beyond its directories', () => {
  it.each([
    { tools: DEFAULT_ALLOWED_TOOLS, mode: 'acceptEdits', sandboxed: false, want: [] },
    { tools: SANDBOXED_TOOLS, mode: 'acceptEdits', sandboxed: true, want: [] },
    // The file tools write only below the working directories, whatever rule names them.
    { tools: ['Read', 'Write', 'Edit(**)'], mode: 'acceptEdits', sandboxed: false, want: [] },
    { tools: ['Bash(npm test:*)'], mode: 'acceptEdits', sandboxed: false, want: [] },
    { tools: ['Bash'], mode: 'acceptEdits', sandboxed: false, want: [/run any command as you/] },
    { tools: ['Bash(*)'], mode: 'acceptEdits', sandboxed: false, want: [/run any command as you/] },
    { tools: ['Bash'], mode: 'acceptEdits', sandboxed: true, want: [] },
    {
      tools: ['Read'],
      mode: 'bypassPermissions',
      sandboxed: false,
      want: [/bypassPermissions .* anything you can/],
    },
    { tools: ['Read'], mode: 'bypassPermissions', sandboxed: true, want: [/stay in the sandbox/] },
    {
      tools: ['Write', 'Bash'],
      mode: 'bypassPermissions',
      sandboxed: false,
      want: [/any command/, /bypassPermissions/],
    },
  ])('$tools in $mode (sandboxed: $sandboxed)', ({ tools, mode, sandboxed, want }) => {
    const got = widerGrants(tools, mode, sandboxed);
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });
});
