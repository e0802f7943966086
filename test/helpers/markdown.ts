// What the docs test reads out of Markdown: the `overnight …` command lines (in code blocks and
// inline code), the links, and the anchors GitHub makes of the headings.

/** One command line a page shows, with where it is. */
export interface DocCommand {
  file: string;
  line: number;
  text: string;
}

/** Where each fenced code block's lines are, and the rest of the page with them blanked out. */
function splitFences(md: string): { code: { line: number; text: string }[]; prose: string[] } {
  const code: { line: number; text: string }[] = [];
  const prose: string[] = [];
  let fenced = false;
  md.split('\n').forEach((text, i) => {
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      prose.push('');
    } else if (fenced) {
      code.push({ line: i + 1, text });
      prose.push('');
    } else prose.push(text);
  });
  return { code, prose };
}

/**
 * The lines of code blocks, with an indented line or one after a trailing `\` joined to the line
 * before it (a synopsis over several lines), and the inline code spans of the prose (a span may
 * cross a line; a table's `\|` is a `|`).
 */
export function codeOf(file: string, md: string): DocCommand[] {
  const { code, prose } = splitFences(md);
  const out: DocCommand[] = [];
  for (const { line, text } of code) {
    const last = out.at(-1);
    if (last && last.line < line && (/^\s+\S/.test(text) || last.text.endsWith('\\')) && text.trim()) {
      last.text = `${last.text.replace(/\\$/, '')} ${text.trim()}`;
    } else out.push({ file, line, text: text.trim() });
  }
  const starts: number[] = [];
  let at = 0;
  for (const l of prose) {
    starts.push(at);
    at += l.length + 1;
  }
  const text = prose.join('\n');
  for (const m of text.matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)) {
    const line = starts.findLastIndex((s) => s <= (m.index ?? 0)) + 1;
    out.push({
      file,
      line,
      text: (m[2] ?? '')
        .replace(/\s*\n\s*/g, ' ')
        .replace(/\\\|/g, '|')
        .trim(),
    });
  }
  return out;
}

/** Words as a shell would split them (quotes kept together, without the quotes). */
export function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g)) out.push(m[0].replace(/['"]/g, ''));
  return out;
}

/**
 * The `overnight …` commands in one line of code, each as its words: a line is cut at `&&`, `||`,
 * `;` and a comment; a `|` followed by an option, a placeholder or one of `subcommands` is a
 * synopsis's "or" and stays, any other `|` is a pipe into another program.
 */
export function overnightCommands(line: string, subcommands: ReadonlySet<string>): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  const all = words(line);
  for (let i = 0; i < all.length; i++) {
    const w = all[i] as string;
    if (w.startsWith('#')) break;
    const next = all[i + 1] ?? '';
    if (w === '|' && (/^[[<(-]/.test(next) || subcommands.has(next))) current.push(w);
    else if (['&&', '||', ';', '|'].includes(w)) {
      out.push(current);
      current = [];
    } else current.push(w.replace(/;$/, ''));
  }
  out.push(current);
  return out.filter((c) => c[0] === 'overnight');
}

/** The options a command's words name (`--wait[=20s]` is `--wait`), up to a `--` that ends them. */
export function flagsOf(command: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of command) {
    const w = raw.replace(/^[[(]+/, '');
    if (w === '--') break;
    const m = /^(--?[A-Za-z][\w-]*)/.exec(w);
    if (m?.[1]) out.push(m[1]);
  }
  return out;
}

/** The anchors GitHub gives a page's headings (`## The next night: continue` → the-next-night-continue). */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of splitFences(md).prose) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const slug = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** The targets of a page's links (`[text](target)`), outside code, with their lines. */
export function linksOf(md: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  splitFences(md).prose.forEach((text, i) => {
    const prose = text.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ line: i + 1, target: m[1] as string });
  });
  return out;
}
