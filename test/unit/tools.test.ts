import { describe, expect, test } from 'vitest';

import { toolProblem } from '../../src/core/agent/tools.js';
import { describeProblem, resolveSettings } from '../../src/core/config/settings.js';

// --allowed-tools and allowed_tools: a name Claude Code does not know is refused, naming it and
// the fix, instead of granting nothing all night.

describe('toolProblem', () => {
  test.each([
    'Read',
    'WebFetch',
    'Bash(npm test:*)',
    'Edit(src/**)',
    'Bash(git log:*)',
    'mcp__github',
    'mcp__github__get_issue',
    'TodoWrite',
  ])('%s is a rule Claude Code knows', (rule) => {
    expect(toolProblem(rule)).toBeNull();
  });

  test.each<{ rule: string; want: RegExp }>([
    { rule: 'Nonsense', want: /^"Nonsense" is not a Claude Code tool; give Claude Code tool names \(Read, / },
    { rule: 'Raed', want: /^"Raed" is not a Claude Code tool; did you mean Read\? / },
    { rule: 'read', want: /did you mean Read\? / },
    { rule: 'Bsah(npm test:*)', want: /did you mean Bash\(npm test:\*\)\? / },
    {
      rule: 'Bash(npm test',
      want: /^"Bash\(npm test" is not a rule Claude Code reads: write it as Bash\(<pattern>\)/,
    },
    { rule: 'Bash(a\x1b[2Jb)', want: /not a rule Claude Code reads/ },
    { rule: 'mcp__', want: /is not a Claude Code tool/ },
  ])('$rule is refused with the fix', ({ rule, want }) => {
    expect(toolProblem(rule)).toMatch(want);
  });
});

describe('allowed_tools in the settings', () => {
  test('--allowed-tools Nonsense is refused, naming the value and the fix; good ones pass', () => {
    const bad = resolveSettings({ home: '/h', env: {}, flags: { allowed_tools: 'Read,Nonsense' } });
    expect(bad.problems.map(describeProblem)).toEqual([
      expect.stringMatching(
        /^--allowed-tools: allowed_tools = "Read,Nonsense" is not valid; "Nonsense" is not a Claude Code tool; give /,
      ),
    ]);
    const good = resolveSettings({ home: '/h', env: {}, flags: { allowed_tools: 'Read,Bash(npm test:*)' } });
    expect(good.problems).toEqual([]);
    expect(good.settings.allowedTools).toEqual(['Read', 'Bash(npm test:*)']);
  });
});
