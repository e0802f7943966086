import { describe, expect, test } from 'vitest';

import { agentArgs, permissionModeProblem, promptFor } from '../../src/core/agent/args.js';
import {
  initialPrompt,
  RESUME_PROMPT,
  resumePrompt,
  SYNTHESIS_PROMPT,
  synthesisPrompt,
} from '../../src/core/agent/briefing.js';
import { runFiles } from '../../src/core/agent/run-files.js';
import type { RunSpec, SessionMode } from '../../src/core/run/types.js';
import { spec as base, REPO, RUN_DIR } from './builders.js';

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
  test.each<{ name: string; spec: Partial<RunSpec>; mode: SessionMode; want: string[] }>([
    {
      name: 'initial, no model',
      spec: {},
      mode: 'initial',
      want: [
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
    },
    {
      name: 'initial with a model',
      spec: { model: 'opus', allowedTools: ['Read'] },
      mode: 'initial',
      want: [
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
    },
    {
      name: 'resume',
      spec: { allowedTools: ['Read'] },
      mode: 'resume',
      want: [...BASE, '--resume', UUID, '--permission-mode', 'acceptEdits', '--allowedTools', 'Read'],
    },
    {
      name: 'synthesis with a model',
      spec: { model: 'claude-opus-4-1', permissionMode: 'plan', allowedTools: ['Read'] },
      mode: 'synthesis',
      want: [
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
    },
    {
      name: 'no tools: no --allowedTools',
      spec: { allowedTools: [] },
      mode: 'resume',
      want: [...BASE, '--resume', UUID, '--permission-mode', 'acceptEdits'],
    },
    {
      name: 'patterns with commas and spaces stay one argument each',
      spec: { allowedTools: ['Bash(git log:*)', 'Bash(npm run test, lint)', 'WebFetch(domain:example.com)'] },
      mode: 'initial',
      want: [
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
    },
  ])('$name', ({ spec: over, mode, want }) => {
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

  test.each<{ mode: SessionMode; want: string; never: string }>([
    { mode: 'initial', want: '--session-id', never: '--resume' },
    { mode: 'resume', want: '--resume', never: '--session-id' },
    { mode: 'synthesis', want: '--resume', never: '--session-id' },
  ])('$mode uses $want with the run session id, never $never', ({ mode, want, never }) => {
    const args = agentArgs(spec(), mode);
    expect(args[args.indexOf(want) + 1]).toBe(UUID);
    expect(args).not.toContain(never);
    expect(args).not.toContain('--model');
  });
});

test.each<{ mode: SessionMode }>([
  { mode: 'initial' },
  { mode: 'resume' },
  { mode: 'continue' },
  { mode: 'synthesis' },
])('$mode passes the fallback model when there is one, and none otherwise', ({ mode }) => {
  const args = agentArgs(spec({ fallbackModel: 'sonnet' }), mode);
  expect(args[args.indexOf('--fallback-model') + 1]).toBe('sonnet');
  expect(agentArgs(spec(), mode)).not.toContain('--fallback-model');
});

describe('promptFor', () => {
  test.each<{ mode: SessionMode; want: string }>([
    { mode: 'initial', want: initialPrompt(TASK) },
    { mode: 'resume', want: RESUME_PROMPT },
    { mode: 'synthesis', want: SYNTHESIS_PROMPT },
  ])('$mode → its own prompt', ({ mode, want }) => {
    expect(promptFor(spec(), mode, NOW)).toBe(want);
  });

  test('only the initial prompt carries the task, verbatim', () => {
    expect(promptFor(spec(), 'initial', NOW)).toContain(TASK);
    expect(promptFor(spec(), 'resume', NOW)).not.toContain('CRDT');
    expect(promptFor(spec(), 'synthesis', NOW)).not.toContain('CRDT');
  });
});

describe('a repository run', () => {
  const repoSpec = () => spec({ repo: REPO, allowedTools: ['Read', 'Bash(git commit:*)'] });

  test.each<{ mode: SessionMode; fresh: boolean; conversation: string[] }>([
    { mode: 'initial', fresh: false, conversation: ['--session-id', UUID] },
    { mode: 'resume', fresh: false, conversation: ['--resume', UUID] },
    { mode: 'synthesis', fresh: false, conversation: ['--resume', UUID] },
    { mode: 'continue', fresh: true, conversation: ['--session-id', UUID] },
  ])(
    '$mode (fresh: $fresh) appends the briefing from the run directory and adds that directory',
    ({ mode, fresh, conversation }) => {
      expect(agentArgs(repoSpec(), mode, 0, fresh, RUN_DIR)).toEqual([
        ...BASE,
        ...conversation,
        '--permission-mode',
        'acceptEdits',
        '--append-system-prompt-file',
        `${RUN_DIR}/CLAUDE.md`,
        '--add-dir',
        RUN_DIR,
        '--allowedTools',
        'Read',
        'Bash(git commit:*)',
      ]);
    },
  );

  test('a plain run gets neither, whatever directory is given', () => {
    const args = agentArgs(spec(), 'initial', 0, false, RUN_DIR);
    expect(args).not.toContain('--append-system-prompt-file');
    expect(args).not.toContain('--add-dir');
  });

  test("without the run's directory its sessions are not started at all", () => {
    expect(() => agentArgs(repoSpec(), 'initial')).toThrow("run's directory");
  });

  test.each<{ mode: SessionMode; want: string }>([
    { mode: 'initial', want: initialPrompt(TASK, RUN_DIR) },
    { mode: 'resume', want: resumePrompt(runFiles(RUN_DIR)) },
    { mode: 'synthesis', want: synthesisPrompt(runFiles(RUN_DIR), true) },
  ])('$mode → its prompt, naming the run directory', ({ mode, want }) => {
    const prompt = promptFor(repoSpec(), mode, NOW, undefined, RUN_DIR);
    expect(prompt).toBe(want);
    expect(prompt).toContain(RUN_DIR);
  });

  test('the synthesis asks for a commit of what is worth keeping before the report', () => {
    expect(promptFor(repoSpec(), 'synthesis', NOW, undefined, RUN_DIR)).toMatch(
      new RegExp(
        `^Time is up\\. Stop exploring now\\. First commit on your branch .* Write ${RUN_DIR}/REPORT\\.md`,
      ),
    );
  });
});

describe('permissionModeProblem', () => {
  // The problem names the mode, root, and both ways out.
  const REFUSED = expect.stringMatching(
    /^(?=.*bypassPermissions)(?=.*root)(?=.*IS_SANDBOX=1)(?=.*acceptEdits)/s,
  );
  test.each<{ mode: string; root: boolean; env: Record<string, string | undefined>; want: unknown }>([
    { mode: 'bypassPermissions', root: true, env: {}, want: REFUSED },
    { mode: 'bypassPermissions', root: true, env: { IS_SANDBOX: '0' }, want: REFUSED },
    { mode: 'bypassPermissions', root: true, env: { IS_SANDBOX: 'true' }, want: REFUSED },
    { mode: 'bypassPermissions', root: true, env: { IS_SANDBOX: '1' }, want: undefined },
    { mode: 'bypassPermissions', root: false, env: {}, want: undefined },
    { mode: 'acceptEdits', root: true, env: {}, want: undefined },
    { mode: 'dontAsk', root: true, env: {}, want: undefined },
    { mode: 'plan', root: false, env: { IS_SANDBOX: '1' }, want: undefined },
  ])('$mode, root $root, env $env', ({ mode, root, env, want }) => {
    expect(permissionModeProblem(mode, root, env)).toEqual(want);
  });
});

describe('--max-budget-usd under a spend cap', () => {
  test.each<{ mode: SessionMode; spent: number; want: string }>([
    { mode: 'initial', spent: 0, want: '9.0000' },
    { mode: 'resume', spent: 4.256, want: '4.7440' },
    { mode: 'synthesis', spent: 9.5, want: '0.5000' },
  ])('$mode after spending $spent of 10 → $want', ({ mode, spent, want }) => {
    const args = agentArgs(spec({ maxCost: 10 }), mode, spent);
    expect(args[args.indexOf('--max-budget-usd') + 1]).toBe(want);
  });

  test('no cap, no flag', () => {
    expect(agentArgs(spec(), 'resume', 3)).not.toContain('--max-budget-usd');
  });
});
