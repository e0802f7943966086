import { format } from 'date-fns/format';

// Every name is derived from the run id, never stored twice.

export const SLUG_MAX = 40;
const ID_PATTERN = /^\d{4}-\d{2}-\d{2}-\d{4}-[a-z0-9-]+$/;

/** `[a-z0-9-]`, at most 40 characters, no leading/trailing/double dashes. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = slug.slice(0, SLUG_MAX).replace(/-+$/g, '');
  return cut || 'run';
}

/** `YYYY-MM-DD-HHMM-<slug>` from the local start time. */
export function runId(startedAt: Date, slug: string): string {
  return `${format(startedAt, 'yyyy-MM-dd-HHmm')}-${slug}`;
}

/** The id to use when `taken(id)` says the plain one exists: `-2`, `-3`, ... */
export function uniqueRunId(base: string, taken: (id: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

export function isRunId(name: string): boolean {
  return ID_PATTERN.test(name);
}

/** The tmux session that holds a run's agent. */
export function tmuxSessionName(id: string): string {
  return `overnight-${id}`;
}

/** A path as one shell word, quoted only when it needs it. */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The full command that attaches to a run's tmux session. `socket` is the server the run recorded
 * (null: the caller's default server, for runs launched before any was recorded); `own` is where
 * `tmux -L overnight` points in the caller's environment.
 */
export function attachCommand(id: string, socket: string | null, own: string): string {
  const target = `attach -t ${tmuxSessionName(id)}`;
  if (socket === null) return `tmux ${target}`;
  if (socket === own) return `tmux -L overnight ${target}`;
  return `tmux -S ${shellWord(socket)} ${target}`;
}

/** Whether tmux lists a live pane for a run's session: its wrapper is still there. */
export function wrapperInPanes(panes: ReadonlyMap<string, { alive: boolean }>, id: string): boolean {
  return panes.get(tmuxSessionName(id))?.alive ?? false;
}

export type Resolution = { id: string } | { error: string };

/** A unique prefix names a run everywhere; an exact id always wins. */
export function resolveRunName(name: string, ids: readonly string[]): Resolution {
  if (ids.includes(name)) return { id: name };
  const matches = ids.filter((id) => id.startsWith(name));
  if (matches.length === 1) return { id: matches[0] as string };
  if (matches.length === 0) return { error: `no run matches "${name}" (see \`overnight status --all\`)` };
  const shown = matches.slice(0, 5).join(', ') + (matches.length > 5 ? ', ...' : '');
  return { error: `"${name}" matches ${matches.length} runs (${shown}); give more of the id` };
}
