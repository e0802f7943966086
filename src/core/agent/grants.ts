// What a run's tools and permission mode grant the agent beyond its working directory and the
// run's directory, said at launch: the person chose it, and should know what it means. Pure.
// The file tools never write outside the working directories (the settings overnight gives every
// session block it), so only commands and the permission mode can reach further.

/** A Bash rule that allows every command. */
const everyCommand = (t: string) => t === 'Bash' || /^Bash\(\s*\*?(:\*)?\s*\)$/.test(t);

/** The launch warnings for tools and a mode wider than the default boundary (empty when none). */
export function widerGrants(tools: readonly string[], mode: string, sandboxed: boolean): string[] {
  const out: string[] = [];
  const shell = tools.filter(everyCommand);
  if (shell.length > 0 && !sandboxed)
    out.push(
      `warning: allowed_tools has ${shell.join(' and ')} and the run has no sandbox: the agent can run ` +
        'any command as you, so a prompt injection in a page it reads can do anything you can; ' +
        'give it commands by name (Bash(npm test:*)), or install the sandbox',
    );
  if (mode === 'bypassPermissions')
    out.push(
      'warning: permission_mode bypassPermissions lets the agent use every tool without asking' +
        (sandboxed
          ? ' (its commands stay in the sandbox; its file tools stay in its directories)'
          : ': with no sandbox its commands can do anything you can; acceptEdits keeps it to its rules'),
    );
  return out;
}
