import { describe, expect, it } from 'vitest';

import { widerGrants } from '../../src/core/agent/grants.js';
import { DEFAULT_ALLOWED_TOOLS, REPO_ALLOWED_TOOLS } from '../../src/core/config/settings.js';

describe('what a run grants beyond its directories', () => {
  it.each([
    { tools: DEFAULT_ALLOWED_TOOLS, mode: 'acceptEdits', want: [] },
    { tools: REPO_ALLOWED_TOOLS, mode: 'acceptEdits', want: [] },
    { tools: ['Read', 'Write(./findings/**)'], mode: 'acceptEdits', want: [] },
    { tools: ['Bash(npm test:*)'], mode: 'acceptEdits', want: [] },
    { tools: ['Read', 'Write'], mode: 'acceptEdits', want: [/Write, which matches every path/] },
    { tools: ['Edit', 'MultiEdit'], mode: 'acceptEdits', want: [/Edit and MultiEdit/] },
    { tools: ['Write(/**)'], mode: 'acceptEdits', want: [/write anywhere you can/] },
    { tools: ['Write(~/**)'], mode: 'acceptEdits', want: [/write anywhere/] },
    { tools: ['Write(**)'], mode: 'acceptEdits', want: [/write anywhere/] },
    { tools: ['Bash'], mode: 'acceptEdits', want: [/run any command as you/] },
    { tools: ['Bash(*)'], mode: 'acceptEdits', want: [/run any command as you/] },
    { tools: ['Read'], mode: 'bypassPermissions', want: [/bypassPermissions .* anything you can/] },
    {
      tools: ['Write', 'Bash'],
      mode: 'bypassPermissions',
      want: [/every path/, /any command/, /bypassPermissions/],
    },
  ])('$tools in $mode', ({ tools, mode, want }) => {
    const got = widerGrants(tools, mode);
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });
});
