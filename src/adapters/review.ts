import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

import { reviewPrompt } from '../core/review/prompt.js';
import { readReview } from '../core/review/read.js';
import { REVIEW_SCHEMA, type Review } from '../core/review/types.js';
import { parseAgentEnv } from '../core/run/agent-env.js';
import type { RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { claudeSettings } from '../core/sandbox/claude-settings.js';
import { runPolicy } from '../core/sandbox/policy.js';
import { checkFile } from '../core/verify/records.js';
import type { ObservedCheck } from '../core/verify/types.js';
import { verdictLine } from '../core/verify/verdict-text.js';
import { verifyResult } from '../core/verify/verdict.js';
import { observeCheck, observeChecks, startCheck } from './check.js';
import { readText, writeFileAtomic } from './files.js';
import { recordedTree } from './git-worktree.js';
import { git } from './git.js';
import { ensureRunTmp, placesOf, type CheckLaunch } from './sandbox.js';
import { readTail } from './store.js';
import { resolveExecutable } from './which.js';

// The reviewer: a separate Claude Code session in a fresh conversation, run like a check (detached,
// its own process group, killed at review_budget, observed without the lock), with read-only tools
// (Read, Glob, Grep, and Bash only in the sandbox, the worktree and the run's directory read-only),
// its answer held to a schema (`--json-schema`) and read back as untrusted input.

/** The diff shown in the prompt at most; the reviewer reads the rest in the worktree. */
const DIFF_BYTES = 200 * 1024;
const OUTPUT_TAIL = 1024 * 1024;

/** Starts the review step (its record first, as a check's). */
export async function startReview(spec: RunSpec, paths: RunPaths, now: Date, tries: number): Promise<void> {
  await startCheck(spec, paths, 'review', now, tries, {}, await reviewLaunch(spec, paths, now));
}

/** The review session's argv and its prompt, written into the run's records. */
async function reviewLaunch(spec: RunSpec, paths: RunPaths, now: Date): Promise<CheckLaunch> {
  if (!spec.review || !spec.repo) throw new Error('the run has no review');
  const prompt = join(paths.state, 'review-prompt.md');
  writeFileAtomic(prompt, await promptFor(spec, paths, now));
  const env = Object.fromEntries(parseAgentEnv(readText(paths.agentEnv) ?? ''));
  const home = env.HOME || homedir();
  const places = placesOf(dirname(paths.workspace), spec, paths, home, env);
  const policy = spec.sandbox ? { ...runPolicy(spec.sandbox, places), write: [paths.tmp] } : null;
  if (policy) ensureRunTmp(paths);
  const readOnly = [spec.repo.worktree, paths.workspace];
  const settings = claudeSettings({
    policy,
    unreadable: policy ? policy.denyRead.filter((p) => p !== places.root) : [],
    readOnly,
  });
  const file = join(paths.state, 'review-settings.json');
  writeFileAtomic(file, JSON.stringify(settings, null, 2) + '\n');
  const tools = ['Read', 'Glob', 'Grep', ...(spec.sandbox ? ['Bash'] : [])];
  const argv = [
    spec.paths.claude,
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--session-id',
    randomUUID(),
    '--json-schema',
    JSON.stringify(REVIEW_SCHEMA),
    '--settings',
    file,
    '--permission-mode',
    'default',
    ...(spec.review.model ? ['--model', spec.review.model] : spec.model ? ['--model', spec.model] : []),
    // Only these exist in its session (with the schema's own StructuredOutput): nothing that writes.
    '--tools',
    tools.join(','),
    '--allowedTools',
    ...tools,
  ];
  // Its own process group, ended as a whole at review_budget (job control where there is no setsid).
  const setsid = resolveExecutable('setsid', '/usr/bin:/bin:/usr/sbin:/sbin');
  return setsid
    ? { mode: 'setsid', argv: [setsid, ...argv], input: prompt }
    : { mode: 'jobs', argv, input: prompt };
}

async function promptFor(spec: RunSpec, paths: RunPaths, now: Date): Promise<string> {
  const repo = spec.repo as NonNullable<RunSpec['repo']>;
  const checks = spec.verify ? await observeChecks(paths, now) : {};
  const v = spec.verify ? verifyResult(spec.verify, checks, null) : null;
  const last = checks.recheck ?? checks.final;
  const head = last?.commit ?? repo.branch;
  const tree = await recordedTree(repo);
  const run = async (args: string[]) => (tree ? (await git(tree, args)).stdout : '');
  const diff = await run(['diff', '--no-color', '--no-ext-diff', repo.base, head]);
  return reviewPrompt({
    task: spec.task,
    branch: repo.branch,
    base: repo.base,
    commit: last?.commit ?? null,
    diffstat: await run(['diff', '--stat', repo.base, head]),
    diff: diff.slice(0, DIFF_BYTES),
    diffCut: diff.length > DIFF_BYTES,
    verdict: v ? verdictLine(v) : null,
    changedTests: v?.changedTests ?? [],
    checkTail: last?.tail ?? null,
  });
}

/** The review step as a pass sees it, and the review once it has ended. */
export async function observeReview(
  spec: RunSpec,
  paths: RunPaths,
  now: Date,
): Promise<{ step: ObservedCheck; review: Review | null } | null> {
  const step = await observeCheck(paths, 'review', now);
  if (!step) return null;
  const ended = step.state === 'exited' || step.state === 'timed-out' || step.state === 'lost';
  if (!ended) return { step, review: null };
  const why =
    step.state === 'timed-out'
      ? `it ran past review_budget (${Math.round((spec.review?.budget ?? 0) / 60)}m) and was stopped`
      : step.state === 'lost'
        ? 'its process was lost (killed, or the machine went down)'
        : null;
  const output = readTail(checkFile(paths.state, 'review', 'log'), OUTPUT_TAIL);
  return { step, review: readReview(output, step.exit?.code ?? null, why) };
}
