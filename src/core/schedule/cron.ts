import { formatDuration } from '../config/duration.js';
import { OperationalError, UsageError } from '../errors.js';

// What `overnight schedule install` writes, as plain text from plain values. Pure: the command
// gathers the paths, the adapter writes the files and runs crontab / launchctl / systemctl.

export const BACKENDS = ['cron', 'launchd', 'systemd'] as const;
export type Backend = (typeof BACKENDS)[number];

export const DEFAULT_EVERY = '5m';
/** Always on the scheduled PATH, after the directories of node, tmux and the agent. */
export const SYSTEM_PATH_DIRS = ['/usr/local/bin', '/usr/bin', '/bin'];

export interface ScheduleValues {
  /** Absolute path of node (the running one: process.execPath). */
  node: string;
  /** Absolute path of the package's bin/overnight.js. */
  cli: string;
  runsRoot: string;
  /** The runs root is the default one (~/overnight-runs): OVERNIGHT_HOME is left out. */
  defaultRoot: boolean;
  /** The PATH the pass runs with (see buildPath). */
  path: string;
  everySeconds: number;
  /** More NAME=value pairs for the entry's environment (tests only). */
  extraEnv?: readonly (readonly [string, string])[];
}

export interface ScheduleNames {
  /** launchd's Label, also the plist's file name without .plist. */
  label: string;
  /** systemd unit name without .service / .timer. */
  unit: string;
  /** Where the passes' output is appended. */
  log: string;
}

/** Installed entries found for a runs root (status and uninstall). */
export interface InstalledEntry {
  backend: Backend;
  everySeconds: number | null;
  /** The crontab, or the file(s) written. */
  where: string;
}

export function isBackend(value: string): value is Backend {
  return (BACKENDS as readonly string[]).includes(value);
}

/** Unique directories, in order; empty and relative entries and those holding ':' dropped. */
export function buildPath(dirs: readonly string[]): string {
  const seen = new Set<string>();
  for (const raw of dirs) {
    const dir = raw.length > 1 ? raw.replace(/\/+$/, '') : raw;
    if (!dir.startsWith('/') || dir.includes(':') || seen.has(dir)) continue;
    seen.add(dir);
  }
  return [...seen].join(':');
}

/** A short stable hash of the runs root (FNV-1a), so schedules of several roots can coexist. */
function rootHash(root: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < root.length; i++) {
    h ^= root.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The default root keeps the plain names; any other root gets its own label and unit. */
export function scheduleNames(runsRoot: string, defaultRoot: boolean): ScheduleNames {
  const log = `${runsRoot}/reconcile.log`;
  if (defaultRoot) return { label: 'dev.overnight.reconcile', unit: 'overnight-reconcile', log };
  const h = rootHash(runsRoot);
  return { label: `dev.overnight.reconcile.${h}`, unit: `overnight-reconcile-${h}`, log };
}

/** The entry's environment, in order: PATH, OVERNIGHT_HOME when not the default, the extras. */
export function scheduleEnv(v: ScheduleValues): [string, string][] {
  const env: [string, string][] = [['PATH', v.path]];
  if (!v.defaultRoot) env.push(['OVERNIGHT_HOME', v.runsRoot]);
  for (const [name, value] of v.extraEnv ?? []) env.push([name, value]);
  return env;
}

/** Every value goes into a line-based file: a line break would split the entry. */
export function checkValues(v: ScheduleValues): void {
  const fields: [string, string][] = [
    ['node', v.node],
    ['the CLI path', v.cli],
    ['the runs root', v.runsRoot],
    ...scheduleEnv(v),
  ];
  for (const [what, value] of fields) {
    if (/[\n\r\0]/.test(value))
      throw new UsageError(
        `${what} ${JSON.stringify(value)} contains a line break; a schedule entry cannot hold it`,
      );
  }
  for (const [name] of v.extraEnv ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UsageError(`${JSON.stringify(name)} is not an environment variable name`);
  }
  for (const [what, value] of [
    ['node', v.node],
    ['the CLI path', v.cli],
    ['the runs root', v.runsRoot],
  ] as const) {
    if (!value.startsWith('/'))
      throw new UsageError(`${what} ${JSON.stringify(value)} is not an absolute path`);
  }
  if (!Number.isInteger(v.everySeconds) || v.everySeconds < 1)
    throw new UsageError(`the interval ${v.everySeconds}s is not a whole number of seconds, 1 or more`);
}

/** A word for sh: bare when safe, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_/.,:@+=-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * cron's time fields for an interval: whole minutes up to 59 (a step in the minute field), or
 * whole hours up to 24. Anything else cannot be written as one cron line and is refused, naming the value.
 */
export function cronTimeFields(everySeconds: number, asTyped = formatDuration(everySeconds)): string {
  const minutes = everySeconds / 60;
  if (Number.isInteger(minutes) && minutes >= 1 && minutes <= 59) return `*/${minutes} * * * *`;
  const hours = everySeconds / 3600;
  if (Number.isInteger(hours) && hours >= 1 && hours <= 23) return `0 */${hours} * * *`;
  if (hours === 24) return '0 0 * * *';
  throw new UsageError(
    `--every ${asTyped} cannot be a cron interval: cron counts whole minutes; ` +
      'give 1m to 59m, or whole hours up to 24h (e.g. --every 5m)',
  );
}

/** The interval of a cron line we wrote; null for anything else. */
export function parseCronInterval(line: string): number | null {
  const fields = line.trim().split(/\s+/).slice(0, 5).join(' ');
  let m = /^\*\/(\d+) \* \* \* \*$/.exec(fields);
  if (m) return Number(m[1]) * 60;
  if (fields === '* * * * *') return 60;
  m = /^0 \*\/(\d+) \* \* \*$/.exec(fields);
  if (m) return Number(m[1]) * 3600;
  return fields === '0 0 * * *' ? 86400 : null;
}

export function cronMarkers(runsRoot: string): { begin: string; end: string } {
  return { begin: `# overnight schedule begin: ${runsRoot}`, end: `# overnight schedule end: ${runsRoot}` };
}

/** The marked block for one runs root, without a trailing newline. */
export function cronBlock(v: ScheduleValues): string {
  checkValues(v);
  const { begin, end } = cronMarkers(v.runsRoot);
  const env = scheduleEnv(v).map(([name, value]) => `${name}=${shellQuote(value)}`);
  const command = [
    ...env,
    shellQuote(v.node),
    shellQuote(v.cli),
    'reconcile',
    '--scheduled',
    '>>',
    shellQuote(scheduleNames(v.runsRoot, v.defaultRoot).log),
    '2>&1',
  ].join(' ');
  // cron turns an unescaped % into a newline; it drops the backslash of \% before sh sees it.
  const line = `${cronTimeFields(v.everySeconds)} ${command.replace(/%/g, '\\%')}`;
  const note =
    `# written by \`overnight schedule install\` (every ${formatDuration(v.everySeconds)}); ` +
    '`overnight schedule uninstall` removes this block';
  return [begin, note, line, end].join('\n');
}

/** The cron line inside the block for `runsRoot`, if there is one. */
export function findCronBlock(
  crontab: string,
  runsRoot: string,
): { line: string | null; everySeconds: number | null } | null {
  const { begin, end } = cronMarkers(runsRoot);
  const lines = crontab.split('\n');
  const start = lines.indexOf(begin);
  if (start < 0) return null;
  const stop = lines.indexOf(end, start + 1);
  const body =
    lines
      .slice(start + 1, stop < 0 ? undefined : stop)
      .find((l) => l.trim() !== '' && !l.trimStart().startsWith('#')) ?? null;
  return { line: body, everySeconds: body === null ? null : parseCronInterval(body) };
}

/**
 * The crontab with the block for `runsRoot` replaced by `block` (appended if absent), or removed
 * when `block` is null. Every other line, blank or comment, stays byte for byte; the blocks of
 * other runs roots too. A last line without a newline gets one only when a block follows it.
 */
export function editCrontab(current: string, block: string | null, runsRoot: string): string {
  const { begin, end } = cronMarkers(runsRoot);
  const lines = current === '' ? [] : current.split('\n');
  // split leaves '' after a final newline: keep it apart so lines are only the lines.
  const finalNewline = lines.length > 0 && lines[lines.length - 1] === '';
  if (finalNewline) lines.pop();
  const kept: string[] = [];
  let insertAt = -1;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== begin) {
      kept.push(lines[i] as string);
      continue;
    }
    const stop = lines.indexOf(end, i + 1);
    if (stop < 0)
      throw new OperationalError(
        `the crontab has the line "${begin}" but not "${end}"; ` +
          'fix it with `crontab -e` (delete the incomplete block), then try again',
      );
    if (insertAt < 0) insertAt = kept.length;
    i = stop;
  }
  if (block !== null) {
    const blockLines = block.replace(/\n$/, '').split('\n');
    if (insertAt < 0) kept.push(...blockLines);
    else kept.splice(insertAt, 0, ...blockLines);
  }
  if (kept.length === 0) return '';
  // A block now at the end always ends with a newline (cron ignores an unterminated last line);
  // otherwise the file ends as it did.
  const blockAtEnd = block !== null && kept[kept.length - 1] === end;
  return kept.join('\n') + (finalNewline || blockAtEnd ? '\n' : '');
}
