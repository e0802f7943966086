import { safeText } from '../text.js';

// What a repository run's night changed, for `status <run>`: its branch, commits and diffstat.

export interface Commit {
  sha: string;
  subject: string;
}

/** The repository facts of a status row (`status --json` has them too). */
export interface RepoRow {
  repo?: string;
  branch?: string;
  /** The commit the branch was made from. */
  base?: string;
  worktree?: string;
  /** Where in the worktree the agent works (`--repo` named a directory below the top). */
  subdir?: string;
  /** Commits on the branch since its base, newest first; null when the branch or repository is gone. */
  commits?: Commit[] | null;
  /** Where the branch went on to a follow-up run: this run's commits end there. */
  handedOver?: string;
}

/** What one run's details add, asked of git: the diffstat, and the worktree's uncommitted changes. */
export interface BranchDetails {
  diffstat: readonly string[];
  /** Paths with uncommitted changes in the worktree, or `gone` when it is not there. */
  worktree: number | 'gone';
}

/** At most this many commits are listed in the details; the rest are counted. */
const SHOWN = 10;
const INDENT = ' '.repeat(12);

export function repoDetails(r: RepoRow, { diffstat, worktree }: BranchDetails): string[] {
  if (!r.repo || !r.branch || !r.base) return [];
  const commits = r.commits;
  const count =
    commits === null || commits === undefined
      ? 'the branch cannot be read (deleted, or the repository moved?)'
      : `${commits.length} ${commits.length === 1 ? 'commit' : 'commits'}`;
  const lines = [
    `repo:       ${r.repo}`,
    `branch:     ${r.branch} from ${r.base.slice(0, 12)}${handedOn(r)}, ${count}`,
    `worktree:   ${r.worktree ?? '?'}${worktreeNote(worktree)}`,
    ...(r.subdir ? [`works in:   ${r.subdir} (the agent's directory in the worktree)`] : []),
  ];
  (commits ?? []).slice(0, SHOWN).forEach((c, i) => {
    lines.push(`${i === 0 ? 'commits:    ' : INDENT}${c.sha.slice(0, 12)} ${safeText(c.subject)}`);
  });
  if (commits && commits.length > SHOWN) lines.push(`${INDENT}… and ${commits.length - SHOWN} more`);
  // git's diffstat: file lines, then the summary; the summary leads here.
  const summary = diffstat.at(-1);
  if (summary) {
    lines.push(`changes:    ${safeText(summary.trim())}`);
    for (const file of diffstat.slice(0, -1)) lines.push(`${INDENT}${safeText(file.trim())}`);
  }
  return lines;
}

/** A run that handed its branch on to a follow-up: its part of the branch ends there. */
function handedOn(r: RepoRow): string {
  return r.handedOver ? ` to ${r.handedOver.slice(0, 12)} (then carried on by the next night)` : '';
}

/** Work left in the worktree is still there, but not on the branch: the morning should know. */
function worktreeNote(worktree: BranchDetails['worktree']): string {
  if (worktree === 'gone') return ' (no longer there)';
  if (worktree === 0) return '';
  return ` (${worktree} uncommitted ${worktree === 1 ? 'change' : 'changes'}, not on the branch)`;
}
