import { nearest } from '../typo.js';

// Which tool rules Claude Code knows (`--allowedTools`), so a typo is refused at launch instead of
// granting nothing all night. Pure.

/** The tools of the pinned Claude Code CLI that a permission rule can name. */
export const KNOWN_TOOLS = [
  'Agent',
  'AskUserQuestion',
  'Bash',
  'BashOutput',
  'CronCreate',
  'CronDelete',
  'CronList',
  'Edit',
  'EnterPlanMode',
  'EnterWorktree',
  'ExitPlanMode',
  'ExitWorktree',
  'Glob',
  'Grep',
  'KillBash',
  'KillShell',
  'LS',
  'ListMcpResourcesTool',
  'LSP',
  'Monitor',
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'Read',
  'ReadMcpResourceTool',
  'Skill',
  'Task',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskOutput',
  'TaskStop',
  'TaskUpdate',
  'TodoWrite',
  'ToolSearch',
  'WebFetch',
  'WebSearch',
  'Write',
] as const;

const KNOWN = new Set<string>(KNOWN_TOOLS);
/** A rule's specifier stays within reason: one line, bounded. */
const SPECIFIER_MAX = 1000;
const MCP = /^mcp__[A-Za-z0-9_-]+$/;

const FIX =
  'give Claude Code tool names (Read, Edit, Write, Bash, Glob, Grep, WebFetch, WebSearch, …), ' +
  'a rule such as Bash(npm test:*) or Edit(src/**), or an MCP tool such as mcp__github__get_issue';

const hasControl = (text: string) =>
  Array.from(text).some((c) => (c.codePointAt(0) as number) < 0x20 || c === '\x7f');

/** Why Claude Code would not know this tool rule, with the fix; null when it is a rule it knows. */
export function toolProblem(rule: string): string | null {
  if (MCP.test(rule)) return null;
  const open = rule.indexOf('(');
  const name = open < 0 ? rule : rule.slice(0, open);
  if (KNOWN.has(name)) {
    if (open < 0) return null;
    const spec = rule.slice(open + 1, -1);
    if (rule.endsWith(')') && spec.length <= SPECIFIER_MAX && !hasControl(spec)) return null;
    return `"${rule}" is not a rule Claude Code reads: write it as ${name}(<pattern>), e.g. Bash(npm test:*)`;
  }
  const lower = KNOWN_TOOLS.map((t) => t.toLowerCase());
  const guess = name.length <= 40 ? nearest(name.toLowerCase(), lower) : null;
  const near = guess ?? (lower.includes(name.toLowerCase()) ? name.toLowerCase() : null);
  const meant = near ? KNOWN_TOOLS[lower.indexOf(near)] : undefined;
  const hint = meant ? `did you mean ${meant}${open < 0 ? '' : rule.slice(open)}? ` : '';
  return `"${name.slice(0, 60)}" is not a Claude Code tool; ${hint}${FIX}`;
}
