// What a run's tools and permission mode grant the agent beyond its working directory and the
// run's directory, said at launch: the person chose it, and should know what it means. Pure.

const WRITERS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];

/** A rule that matches every path: the bare tool, or a pattern with no directory of its own. */
function everyPath(tool: string): boolean {
  for (const w of WRITERS) {
    if (tool === w) return true;
    if (tool.startsWith(`${w}(`) && tool.endsWith(')')) {
      const pattern = tool.slice(w.length + 1, -1).trim();
      if (/^(\/\/?|~\/?)?\*\*(\/\*)?$/.test(pattern) || pattern === '*' || pattern === '') return true;
    }
  }
  return false;
}

/** The launch warnings for tools and a mode wider than the default boundary (empty when none). */
export function widerGrants(tools: readonly string[], mode: string): string[] {
  const out: string[] = [];
  const anywhere = tools.filter(everyPath);
  if (anywhere.length > 0)
    out.push(
      `warning: allowed_tools has ${anywhere.join(' and ')}, which matches every path: Claude Code then ` +
        'lets the agent write anywhere you can (your home directory included), not only in its working ' +
        'directory and the run directory (acceptEdits already allows those); leave them out to keep it there',
    );
  const shell = tools.filter((t) => t === 'Bash' || /^Bash\(\s*\*?(:\*)?\s*\)$/.test(t));
  if (shell.length > 0)
    out.push(
      `warning: allowed_tools has ${shell.join(' and ')}: the agent can run any command as you, ` +
        'so a prompt injection in a page it reads can do anything you can; give it commands by name ' +
        '(Bash(npm test:*)) to keep it narrow',
    );
  if (mode === 'bypassPermissions')
    out.push(
      'warning: permission_mode bypassPermissions lets the agent use every tool on every path without ' +
        'asking: it can do anything you can; acceptEdits keeps it to its directories',
    );
  return out;
}
