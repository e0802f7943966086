// How the briefing and the prompts name the run's files: beside the agent in a plain run, by
// absolute path in a repository run (the agent works in a worktree; the files stay in the run's
// directory, which is not in the repository).

export interface RunFiles {
  claudeMd: string;
  questions: string;
  findings: string;
  report: string;
  /** The report of the run a follow-up continues, kept beside its own. */
  previousReport: string;
}

export function runFiles(runDir: string | null): RunFiles {
  const at = (name: string) => (runDir ? `${runDir}/${name}` : name);
  return {
    claudeMd: at('CLAUDE.md'),
    questions: at('questions.md'),
    findings: at('findings/'),
    report: at('REPORT.md'),
    previousReport: at('previous/REPORT.md'),
  };
}

/** A plain run's files, in the agent's working directory. */
export const HERE: RunFiles = runFiles(null);
