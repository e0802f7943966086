import type { Continuation } from '../run/continuation.js';
import type { RunSpec, SessionMode } from '../run/types.js';
import { sessionBudget } from '../supervise/budget.js';
import { continuePrompt, handoverPrompt, initialPrompt, resumePrompt, synthesisPrompt } from './briefing.js';
import { continuationNote, followUpHandover, forkPrompt } from './continuation.js';
import { runFiles } from './run-files.js';

// The agent's argv and stdin for each kind of session. The prompt only ever goes to stdin.

/**
 * `fresh`: a new conversation (its id already in `spec`), not a resume of the old one. `runDir`: the
 * run's directory, which a repository run's agent (working in its worktree) is given as well.
 * `fork`: a follow-up's first session resumes this earlier conversation into its own (whose id
 * overnight chose, so it knows it), leaving the earlier one as it was. `settings`: the file in the
 * run's records with its sandbox and the file tools' Read rules (`claude --settings`).
 */
export function agentArgs(
  spec: RunSpec,
  mode: SessionMode,
  spentUsd = 0,
  fresh = false,
  runDir: string | null = null,
  fork: string | null = null,
  settings: string | null = null,
): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  if (fork) args.push('--resume', fork, '--fork-session', '--session-id', spec.sessionId);
  else
    args.push(
      ...(mode === 'initial' || fresh ? ['--session-id', spec.sessionId] : ['--resume', spec.sessionId]),
    );
  if (spec.model) args.push('--model', spec.model);
  if (spec.fallbackModel) args.push('--fallback-model', spec.fallbackModel);
  const budget = sessionBudget(spec, mode, spentUsd);
  if (budget !== null) args.push('--max-budget-usd', budget.toFixed(4));
  args.push('--permission-mode', spec.permissionMode);
  if (spec.repo) {
    if (!runDir) throw new Error("a repository run's sessions need the run's directory");
    // The briefing reaches the agent without being written into the repository: appended to the
    // system prompt from a file (recorded with the conversation, so every resume keeps it; given
    // again for a fresh one). The run's directory is a working directory too: findings go there.
    args.push('--append-system-prompt-file', `${runDir}/CLAUDE.md`, '--add-dir', runDir);
    // A conversation keeps the system prompt of its first request, the earlier run's briefing for a
    // follow-up (its directory, worktree and end time): rendered afresh from the new one instead.
    if (spec.continues) args.push('--system-prompt-snapshot', 'off');
  }
  if (settings) args.push('--settings', settings);
  // The person's extra writable directories are working directories of the file tools too.
  for (const dir of spec.sandbox?.write ?? []) args.push('--add-dir', dir);
  // Last, because it takes a list: one argument per tool, so patterns may hold commas and spaces.
  if (spec.allowedTools.length > 0) args.push('--allowedTools', ...spec.allowedTools);
  return args;
}

/**
 * `runDir` as for agentArgs: a repository run's prompts name its files by absolute path.
 * `continuation`: a follow-up's, for its first session (resumed with `fork`, else handed over) and
 * for every fresh session after, which must hear the answers again.
 */
export function promptFor(
  spec: RunSpec,
  mode: SessionMode,
  now: Date,
  handover?: { lastResult: string | null },
  runDir: string | null = null,
  continuation: Continuation | null = null,
): string {
  const dir = spec.repo ? runDir : null;
  const f = runFiles(dir);
  const synthesis = synthesisPrompt(f, spec.repo !== null);
  if (mode === 'initial' && continuation)
    return continuation.fork
      ? forkPrompt(continuation, f, workPlace(spec, runDir), spec.repo !== null)
      : followUpHandover(continuation, spec.task, f);
  if (mode === 'initial') return initialPrompt(spec.task, dir);
  if (handover) {
    const last = handover.lastResult ?? continuation?.lastWords ?? null;
    const note = continuation ? continuationNote(continuation, f) : '';
    return handoverPrompt(spec.task, last, f) + note + (mode === 'synthesis' ? `\n${synthesis}` : '');
  }
  if (mode === 'continue') return continuePrompt(spec.endsAt, now, f);
  // The fix session's words (the check's failures) come with it, as the synthesis's verdict does.
  if (mode === 'fix') return '';
  return mode === 'synthesis' ? synthesis : resumePrompt(f); // resume and retry
}

/** Where a follow-up's agent now works, said in its first prompt. */
function workPlace(spec: RunSpec, runDir: string | null): string {
  if (!spec.repo)
    return `this run's directory, ${runDir ?? 'the current directory'} (your working directory)`;
  return (
    `${spec.repo.subdir ? `${spec.repo.subdir} in ` : ''}the worktree ${spec.repo.worktree} ` +
    `(your working directory), still on the branch ${spec.repo.branch}; ` +
    `this run's files are in ${runDir ?? "the run's directory"}`
  );
}

/** Why a permission mode cannot work for this user, or undefined when it can. */
export function permissionModeProblem(
  mode: string,
  isRoot: boolean,
  env: Record<string, string | undefined>,
): string | undefined {
  if (mode === 'bypassPermissions' && isRoot && env.IS_SANDBOX !== '1') {
    return (
      'permission_mode bypassPermissions is refused by Claude Code when running as root ' +
      '(every session would exit 1 at once); ' +
      'use acceptEdits, or set IS_SANDBOX=1 if this machine is a disposable sandbox'
    );
  }
  return undefined;
}
