import { describe, expect, test } from 'vitest';

import { agentArgs, permissionModeProblem, promptFor } from '../../src/core/agent/args.js';
import { initialPrompt, RESUME_PROMPT, SYNTHESIS_PROMPT } from '../../src/core/agent/briefing.js';
import type { RunSpec, SessionMode } from '../../src/core/run/types.js';
import { spec as base } from './builders.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const UUID = '0b6f3c2e-7d1a-4c52-9a43-2f1e8d7c6b5a';
const TASK = 'Survey "CRDT" libraries; $(whoami) `id`\nsecond line';

const spec = (over: Partial<RunSpec> = {}) =>
  base({
    task: TASK,
    sessionId: UUID,
    allowedTools: ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebSearch', 'WebFetch'],
    ...over,
  });

const BASE = ['-p', '--output-format', 'stream-json', '--verbose'];

describe('agentArgs', () => {
  test.each<[string, Partial<RunSpec>, SessionMode, string[]]>([
    [
      'initial, no model',
      {},
      'initial',
      [
        ...BASE,
        '--session-id',
        UUID,
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'Read',
        'Write',
        'Edit',
        'Glob',
        'Grep',
        'WebSearch',
        'WebFetch',
      ],
    ],
    [
      'initial with a model',
      { model: 'opus', allowedTools: ['Read'] },
      'initial',
      [
        ...BASE,
        '--session-id',
        UUID,
        '--model',
        'opus',
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'Read',
      ],
    ],
    [
      'resume',
      { allowedTools: ['Read'] },
      'resume',
      [...BASE, '--resume', UUID, '--permission-mode', 'acceptEdits', '--allowedTools', 'Read'],
    ],
    [
      'synthesis with a model',
      { model: 'claude-opus-4-1', permissionMode: 'plan', allowedTools: ['Read'] },
      'synthesis',
      [
        ...BASE,
        '--resume',
        UUID,
        '--model',
        'claude-opus-4-1',
        '--permission-mode',
        'plan',
        '--allowedTools',
        'Read',
      ],
    ],
    [
      'no tools: no --allowedTools',
      { allowedTools: [] },
      'resume',
      [...BASE, '--resume', UUID, '--permission-mode', 'acceptEdits'],
    ],
    [
      'patterns with commas and spaces stay one argument each',
      { allowedTools: ['Bash(git log:*)', 'Bash(npm run test, lint)', 'WebFetch(domain:example.com)'] },
      'initial',
      [
        ...BASE,
        '--session-id',
        UUID,
        '--permission-mode',
        'acceptEdits',
        '--allowedTools',
        'Bash(git log:*)',
        'Bash(npm run test, lint)',
        'WebFetch(domain:example.com)',
      ],
    ],
  ])('%s', (_name, over, mode, want) => {
    expect(agentArgs(spec(over), mode)).toEqual(want);
  });

  test.each<SessionMode>(['initial', 'resume', 'synthesis'])(
    '%s: --allowedTools comes last, the task and prompt never',
    (mode) => {
      const s = spec({ model: 'opus' });
      const args = agentArgs(s, mode);
      const at = args.indexOf('--allowedTools');
      expect(args.slice(at + 1)).toEqual(s.allowedTools);
      expect(args.filter((a) => a.startsWith('--')).at(-1)).toBe('--allowedTools');
      expect(args.join('\n')).not.toContain('CRDT');
      expect(args.join('\n')).not.toContain(promptFor(s, mode, NOW).trim());
      expect(args.filter((a) => a === '--session-id' || a === '--resume')).toHaveLength(1);
    },
  );

  test.each<[SessionMode, string, string]>([
    ['initial', '--session-id', '--resume'],
    ['resume', '--resume', '--session-id'],
    ['synthesis', '--resume', '--session-id'],
  ])('%s uses %s with the run session id, never %s', (mode, flag, other) => {
    const args = agentArgs(spec(), mode);
    expect(args[args.indexOf(flag) + 1]).toBe(UUID);
    expect(args).not.toContain(other);
    expect(args).not.toContain('--model');
  });
});

describe('promptFor', () => {
  test.each<[SessionMode, string]>([
    ['initial', initialPrompt(TASK)],
    ['resume', RESUME_PROMPT],
    ['synthesis', SYNTHESIS_PROMPT],
  ])('%s', (mode, want) => {
    expect(promptFor(spec(), mode, NOW)).toBe(want);
  });

  test('only the initial prompt carries the task, verbatim', () => {
    expect(promptFor(spec(), 'initial', NOW)).toContain(TASK);
    expect(promptFor(spec(), 'resume', NOW)).not.toContain('CRDT');
    expect(promptFor(spec(), 'synthesis', NOW)).not.toContain('CRDT');
  });
});

describe('permissionModeProblem', () => {
  test.each<[string, boolean, Record<string, string | undefined>, boolean]>([
    ['bypassPermissions', true, {}, true],
    ['bypassPermissions', true, { IS_SANDBOX: '0' }, true],
    ['bypassPermissions', true, { IS_SANDBOX: 'true' }, true],
    ['bypassPermissions', true, { IS_SANDBOX: '1' }, false],
    ['bypassPermissions', false, {}, false],
    ['acceptEdits', true, {}, false],
    ['dontAsk', true, {}, false],
    ['plan', false, { IS_SANDBOX: '1' }, false],
  ])('%s, root %s, env %j → problem %s', (mode, root, env, problem) => {
    const p = permissionModeProblem(mode, root, env);
    if (problem) {
      expect(p).toMatch(/bypassPermissions/);
      expect(p).toMatch(/root/);
      expect(p).toMatch(/IS_SANDBOX=1/);
      expect(p).toMatch(/acceptEdits/);
    } else {
      expect(p).toBeUndefined();
    }
  });
});

describe('--max-budget-usd under a spend cap', () => {
  test.each<[SessionMode, number, string | undefined]>([
    ['initial', 0, '9.0000'],
    ['resume', 4.256, '4.7440'],
    ['synthesis', 9.5, '0.5000'],
  ])('%s after $%s spent → %s', (mode, spent, budget) => {
    const args = agentArgs(spec({ maxCost: 10 }), mode, spent);
    expect(args[args.indexOf('--max-budget-usd') + 1]).toBe(budget);
  });

  test('no cap, no flag', () => {
    expect(agentArgs(spec(), 'resume', 3)).not.toContain('--max-budget-usd');
  });
});
