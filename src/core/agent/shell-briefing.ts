import type { SandboxSpec } from '../sandbox/policy.js';

// The briefing's part on what the agent's commands can do: in the sandbox (the default where it
// runs), or none at all, in which case overnight commits a repository run's work itself. Pure.

/** Whether the tools hold a rule for the shell at all. */
export const hasShell = (tools: readonly string[] | undefined): boolean =>
  (tools ?? []).some((t) => t === 'Bash' || t.startsWith('Bash('));

export function shellSection(
  sandbox: SandboxSpec | undefined,
  tools: readonly string[] | undefined,
  repo: boolean,
): string {
  if (sandbox && hasShell(tools)) {
    const net =
      sandbox.network.length === 0
        ? 'no network at all'
        : `the network only for ${sandbox.network.join(', ')}`;
    return `
## Your commands

Your shell commands (the Bash tool) run in a sandbox: they can write only in your working
directory${repo ? ", the run's directory" : ''} and your temp directory (\`$TMPDIR\`); the rest of the
system is read-only, and they have ${net}. Install, build, test and use git as you normally would.
A command that fails for lack of access will fail again the same way: work around it, and note
in questions.md what you needed. Anything you start in the background ends with your session.
`;
  }
  if (repo && !hasShell(tools))
    return `
## Your changes

You have no shell tonight: edit files with your file tools. overnight commits your changes to
the branch after each of your sessions, so leave the worktree in a state you would commit.
`;
  return '';
}
