import type { RunFiles } from './run-files.js';

// The briefing's part for a run on a repository: where the agent works, what it may do with git,
// and where overnight's files go instead.

export interface RepoBriefing {
  /** The run's directory: CLAUDE.md, questions.md, findings/ and REPORT.md live there. */
  runDir: string;
  /** The person's repository. */
  path: string;
  branch: string;
  /** The commit the branch was made from. */
  base: string;
  worktree: string;
  /** Where in the worktree the agent works, when not at its top (a monorepo's package). */
  subdir?: string;
  /** A follow-up: the run whose branch it carries on. */
  continues?: string;
}

function made(r: RepoBriefing): string {
  const at = r.base.slice(0, 12);
  return r.continues
    ? `carried on from the run ${r.continues} at commit ${at}`
    : `made for this run from commit ${at}`;
}

/** The agent's directory: the worktree, or the part of it the person named (`--repo ~/app/lib`). */
function where(r: RepoBriefing): string {
  if (!r.subdir) return `Your working directory, \`${r.worktree}\``;
  const cwd = `${r.worktree}/${r.subdir}`;
  return `Your working directory, \`${cwd}\`, is \`${r.subdir}\` in \`${r.worktree}\`, which`;
}

export function repoSection(r: RepoBriefing, f: RunFiles, shell = true): string {
  const commit = shell
    ? `- Commit your work on this branch as you go, in small commits with clear messages
  (\`git add <files>\`, then \`git commit -m "<message>"\`).`
    : '- overnight commits your work on this branch after each of your sessions.';
  return `## Where you work

- ${where(r)}, is a git worktree of the repository
  \`${r.path}\` on the branch \`${r.branch}\`, ${made(r)}.
  The repository's own CLAUDE.md and conventions apply as usual.
${commit}
- Never push, merge, rebase or reset another branch, never check out another branch, and leave the
  repository's other worktrees alone (the person's checkout among them): the person reviews this
  branch in the morning.
- Keep overnight's files out of the repository. They live in the run's directory,
  \`${r.runDir}\` (also in the environment as OVERNIGHT_RUN_DIR):
  - questions for the person: \`${f.questions}\`
  - your findings, one file per finding or topic: \`${f.findings}\`
  - the final report: \`${f.report}\`
`;
}
