// The agent may run the check itself: its allowed tools get exactly `Bash(<command>)` when the
// run's tools would not otherwise allow that command. Nothing wider. Pure.

/** Whether a Bash rule among the tools already allows `command` as a whole. */
export function bashAllows(tools: readonly string[], command: string): boolean {
  for (const t of tools) {
    if (t === 'Bash' || /^Bash\(\s*\*?(:\*)?\s*\)$/.test(t)) return true;
    if (!t.startsWith('Bash(') || !t.endsWith(')')) continue;
    const rule = t.slice(5, -1);
    if (rule === command) return true;
    // `Bash(npm test:*)`: the prefix, then anything.
    if (rule.endsWith(':*') && (command === rule.slice(0, -2) || command.startsWith(`${rule.slice(0, -2)} `)))
      return true;
  }
  return false;
}

/** The run's tools with the check's command added when they do not allow it yet. */
export function toolsWithCheck(tools: readonly string[], command: string | null): string[] {
  if (command === null || bashAllows(tools, command)) return [...tools];
  return [...tools, `Bash(${command})`];
}
