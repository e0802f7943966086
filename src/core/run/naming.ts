import { format } from 'date-fns/format';

import { nearest } from '../typo.js';

// Every name is derived from the run id, never stored twice.

export const SLUG_MAX = 40;
// Lower-case ASCII letters, digits and dashes, and letters (with their marks) and digits beyond
// ASCII. Made on first use: making it (its Unicode classes) cost every command half a ms at load.
let idPattern: RegExp | undefined;
const ID_PATTERN = () =>
  (idPattern ??= /^\d{4}-\d{2}-\d{2}-\d{4}-(?:[a-z0-9-]|(?!\p{ASCII})[\p{L}\p{M}\p{N}])+$/u);

/**
 * Letters and digits in lower case, at most 40 of them, joined by single dashes. Latin accents are
 * dropped (`Café` → `cafe`); letters of other scripts are kept (`夜間の調査`, `твой` stay as they are).
 */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    // Accents of Latin letters only: й or ё of other scripts are letters of their own.
    .replace(/([A-Za-z])[\u0300-\u036f]+/g, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^[-\p{M}]+|-+$/gu, '');
  // Cut by characters, never inside one (a letter beyond the BMP is two UTF-16 units).
  const cut = Array.from(slug).slice(0, SLUG_MAX).join('').replace(/-+$/g, '');
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

// Most ids are ASCII: the Unicode pattern takes milliseconds to compile, on its first use.
const ASCII_ID = /^\d{4}-\d{2}-\d{2}-\d{4}-[a-z0-9-]+$/;
// eslint-disable-next-line no-control-regex
const ALL_ASCII = /^[\x00-\x7f]*$/;

export function isRunId(name: string): boolean {
  return ASCII_ID.test(name) || (!ALL_ASCII.test(name) && ID_PATTERN().test(name));
}

/**
 * The tmux session that holds a run's agent. Letters beyond ASCII are spelled as `_<hex>_`: tmux
 * lists them as `_` under a locale that is not UTF-8 (cron's), and the session would seem gone.
 */
export function tmuxSessionName(id: string): string {
  // The Unicode pattern is made (on every call, as built) only for an id that needs it.
  if (ALL_ASCII.test(id)) return `overnight-${id}`;
  return `overnight-${id.replace(/\P{ASCII}/gu, (c) => `_${(c.codePointAt(0) as number).toString(16)}_`)}`;
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

/** A run that was given a name at launch (run.yaml's `name`). */
export interface NamedRun {
  id: string;
  name: string;
  startedAt: Date;
}

/** `byWords`: found by words of its id only, which a run's own name, unreadable, may explain better. */
export type Resolution = { id: string; note?: string; byWords?: true } | { error: string };

/** The slug of a run id: what follows the start time. */
function slugOf(id: string): string {
  return id.slice('yyyy-MM-dd-HHmm-'.length);
}

/**
 * The runs that may carry `handle` as their name: the id's slug comes from the name, with a `-2`, `-3`
 * when the minute already had one. Only these run.yaml files need reading to resolve a name.
 */
export function mayBeNamed(handle: string, ids: readonly string[]): string[] {
  const slug = slugify(handle);
  return ids.filter((id) => {
    const s = slugOf(id);
    return s === slug || (s.startsWith(`${slug}-`) && /^\d+$/.test(s.slice(slug.length + 1)));
  });
}

function byWordsOrNone(
  handle: string,
  ids: readonly string[],
  { named = [], cmd = 'overnight', strict = false }: ResolveOptions,
): Resolution {
  const found = byWords(handle, ids);
  const [only] = found;
  if (only && found.length === 1) {
    if (strict)
      return {
        error:
          `"${handle}" is no run's id or name; the one run whose id has those words is ${only}: ` +
          'give its id (or the start of it) to be sure',
      };
    return {
      id: only,
      note: `taking ${only}, the one run whose id has the words "${handle}"`,
      byWords: true,
    };
  }
  if (found.length > 1) {
    const shown = found.slice(0, 5).join(', ') + (found.length > 5 ? ', ...' : '');
    return { error: `"${handle}" is in the ids of ${found.length} runs (${shown}); give more of the id` };
  }
  const near = nearest(slugify(handle), [...ids.map(slugOf), ...named.map((r) => slugify(r.name))]);
  const hint = near ? `; did you mean "${near}"?` : '';
  return { error: `no run matches "${handle}"${hint}: ${HOW_TO_NAME} (see \`${cmd} status --all\`)` };
}

export interface ResolveOptions {
  /** Runs of `mayBeNamed` that were given a name, read from their run.yaml. */
  named?: readonly NamedRun[];
  /** How the person runs overnight, for the hint (`overnight`, `npx overnight`). */
  cmd?: string;
  /** A command that ends or deletes a run: a name several runs share is refused, not guessed. */
  strict?: boolean;
}

/** How a person names a run, said when what they gave names none. */
const HOW_TO_NAME =
  'a run is named by its id, the start of its id, the --name it was given, or words of its id ' +
  '(its task\'s first words: "survey-crdt" for 2026-11-21-2315-survey-crdt-libraries)';

/**
 * The runs whose id has `handle`'s words, whole and in order (`survey`, `crdt libraries`); none for
 * a handle without a letter or digit.
 */
function byWords(handle: string, ids: readonly string[]): string[] {
  if (!/[\p{L}\p{N}]/u.test(handle)) return [];
  const words = `-${slugify(handle)}-`;
  return ids.filter((id) => `-${slugOf(id)}-`.includes(words));
}

/**
 * A run is named by its full id, by its name (as given at launch, or as its slug), by a unique
 * prefix of its id, or by words of its id (the task's first words), in that order. Of several runs
 * with one name the newest wins, and says so; a run found by words says which it took, and a
 * command that ends or deletes a run (`strict`) takes none that way.
 */
export function resolveRunName(
  handle: string,
  ids: readonly string[],
  { named = [], cmd = 'overnight', strict = false }: ResolveOptions = {},
): Resolution {
  if (ids.includes(handle)) return { id: handle };
  const slug = slugify(handle);
  const byName = named
    .filter((r) => ids.includes(r.id) && slugify(r.name) === slug)
    .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : -1));
  const newest = byName[0];
  if (newest) {
    if (byName.length === 1) return { id: newest.id };
    const others = byName.slice(1).map((r) => r.id);
    if (strict)
      return {
        error:
          `${byName.length} runs are named "${newest.name}" (${byName.map((r) => r.id).join(', ')}); ` +
          'give the id of the one you mean',
      };
    const note =
      `${byName.length} runs are named "${newest.name}"; this is the newest, ${newest.id} ` +
      `(the others: ${others.join(', ')})`;
    return { id: newest.id, note };
  }
  const matches = ids.filter((id) => id.startsWith(handle));
  if (matches.length === 1) return { id: matches[0] as string };
  if (matches.length === 0) return byWordsOrNone(handle, ids, { named, cmd, strict });
  const shown = matches.slice(0, 5).join(', ') + (matches.length > 5 ? ', ...' : '');
  return { error: `"${handle}" matches ${matches.length} runs (${shown}); give more of the id` };
}
