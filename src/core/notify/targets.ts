// The `notify:` list of config.yaml, validated: each target is kept or skipped with a message
// naming it and the fix. Pure.

import { hashText } from '../hash.js';

export const NOTIFY_EVENTS = [
  'done',
  'failed',
  'needs-you',
  'restart',
  'waiting',
  'report-late',
  'overage',
  // The morning digest, once a day at `at:` (core/notify/digest.ts), not a transition.
  'digest',
] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENTS)[number];
export const DEFAULT_ON: readonly NotifyEventKind[] = ['done', 'failed', 'needs-you'];

export const WEBHOOK_FORMATS = ['json', 'ntfy', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

interface Common {
  /** Stable across passes and edits of `name:` or `on:`: names the target's deliveries on disk. */
  id: string;
  /** How messages name it; never the URL's path or a header (they may be secrets). */
  label: string;
  on: NotifyEventKind[];
  /** With `on: digest`: the local time (`HH:MM`) after which the day's digest is sent. */
  at?: string;
}
export type WebhookTarget = Common & {
  kind: 'webhook';
  url: string;
  format: WebhookFormat;
  headers: Record<string, string>;
};
export type CommandTarget = Common & { kind: 'command'; command: string; args: string[] };
export type DesktopTarget = Common & { kind: 'desktop' };
export type NotifyTarget = WebhookTarget | CommandTarget | DesktopTarget;

/** A target before it is named and subscribed. */
type Bare =
  Omit<WebhookTarget, keyof Common> | Omit<CommandTarget, keyof Common> | Omit<DesktopTarget, keyof Common>;

const KINDS = ['webhook', 'command', 'desktop'] as const;
const KEYS: Record<(typeof KINDS)[number], readonly string[]> = {
  webhook: ['webhook', 'format', 'headers'],
  command: ['command', 'args'],
  desktop: ['desktop'],
};
const COMMON_KEYS = ['name', 'on', 'at'];
const ALL_KEYS = [...COMMON_KEYS, ...Object.values(KEYS).flat()];

/** `${NAME}` in a URL, a header value or an argument: a variable of the run's launch environment. */
const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The variables a target names, in order of appearance. */
export function varsOf(target: NotifyTarget): string[] {
  const texts =
    target.kind === 'webhook'
      ? [target.url, ...Object.values(target.headers)]
      : target.kind === 'command'
        ? target.args
        : [];
  const names = texts.flatMap((t) => [...t.matchAll(VAR)].map((m) => m[1] as string));
  return [...new Set(names)];
}

/**
 * The variables any target names: kept out of the agent's environment (they hold tokens and
 * webhook URLs), kept for the notifications alone.
 */
export function secretVarsOf(targets: readonly NotifyTarget[]): string[] {
  return [...new Set(targets.flatMap(varsOf))].sort();
}

/** `${NAME}` replaced from `vars`; the first name that has no value, if any. */
export function expandVars(
  text: string,
  vars: Record<string, string | undefined>,
): { ok: true; value: string } | { ok: false; missing: string } {
  let missing: string | null = null;
  const value = text.replace(VAR, (_, name: string) => {
    const v = vars[name];
    if (v === undefined) missing ??= name;
    return v ?? '';
  });
  return missing === null ? { ok: true, value } : { ok: false, missing };
}

/** A URL as messages may show it: scheme and host, never the path (a Slack or ntfy URL is a secret). */
export function shownUrl(url: string): string {
  if (url.startsWith('${')) return 'a URL from the environment';
  try {
    const u = new URL(url.replace(VAR, 'x'));
    return `${u.protocol}//${u.host}`;
  } catch {
    return JSON.stringify(url.length > 24 ? `${url.slice(0, 24)}…` : url);
  }
}

function labelOf(t: Bare, name: string | undefined): string {
  if (name) return name;
  if (t.kind === 'webhook') {
    const host = shownUrl(t.url).replace(/^[a-z]+:\/\//, '');
    return `${t.format} webhook to ${host}`;
  }
  return t.kind === 'command' ? `command ${t.command}` : 'desktop';
}

function idOf(t: Bare): string {
  const canonical =
    t.kind === 'webhook'
      ? [t.kind, t.url, t.format, Object.entries(t.headers).sort()]
      : t.kind === 'command'
        ? [t.kind, t.command, t.args]
        : [t.kind];
  // 48 bits of a string hash, stable across versions: plenty for a handful of targets.
  return hashText(JSON.stringify(canonical));
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;

/** A placeholder that is not `${NAME}` (a typo such as `$NTFY_TOKEN}` or `${1X}`). */
function badPlaceholder(value: string): string | null {
  const rest = value.replace(VAR, '');
  const m = /\$\{[^}]*\}?/.exec(rest);
  return m ? m[0] : null;
}

class Skip extends Error {}

function one(
  raw: unknown,
  home: string,
): { bare: Bare; on: NotifyEventKind[]; label: string; at: string | null } {
  if (!isMap(raw))
    throw new Skip('expected a mapping such as {webhook: https://ntfy.sh/your-topic, format: ntfy}');
  const unknown = Object.keys(raw).filter((k) => !ALL_KEYS.includes(k));
  if (unknown.length > 0)
    throw new Skip(`unknown key "${unknown[0]}"; a target knows ${ALL_KEYS.join(', ')}`);
  const kinds = KINDS.filter((k) => raw[k] !== undefined);
  if (kinds.length === 0) throw new Skip('give one of webhook:, command: or desktop: true');
  if (kinds.length > 1) throw new Skip(`has both ${kinds[0]}: and ${kinds[1]}:; give one per target`);
  const kind = kinds[0] as (typeof KINDS)[number];
  const misplaced = Object.keys(raw).find((k) => !COMMON_KEYS.includes(k) && !KEYS[kind].includes(k));
  if (misplaced) throw new Skip(`${misplaced}: does not apply to a ${kind} target`);

  let name: string | undefined;
  if (raw.name !== undefined) {
    const n = text(raw.name)?.trim();
    if (!n || n.length > 60 || /[\p{Cc}]/u.test(n))
      throw new Skip('name: expected a short name of one line, e.g. phone');
    name = n;
  }
  const on = eventsOf(raw.on);
  const at = digestAt(raw.at, on);

  let target: Bare;
  if (kind === 'webhook') {
    const url = text(raw.webhook)?.trim();
    if (!url) throw new Skip('webhook: expected an http or https URL');
    checkUrl(url);
    const format = raw.format === undefined ? 'json' : raw.format;
    if (!(WEBHOOK_FORMATS as readonly unknown[]).includes(format))
      throw new Skip(`format: ${JSON.stringify(format)} is not one of ${WEBHOOK_FORMATS.join(', ')}`);
    target = { kind, url, format: format as WebhookFormat, headers: headersOf(raw.headers) };
  } else if (kind === 'command') {
    const given = text(raw.command)?.trim();
    const command = given?.startsWith('~/') ? home + given.slice(1) : given;
    if (!command || !command.startsWith('/'))
      throw new Skip(
        `command: ${JSON.stringify(raw.command)} is not an absolute path; ` +
          'passes run from cron or launchd with a minimal PATH, so give the full path (or ~/…)',
      );
    target = { kind, command, args: argsOf(raw.args) };
  } else {
    if (raw.desktop !== true) throw new Skip('desktop: expected true (remove the target to turn it off)');
    target = { kind };
  }
  return { bare: target, on, label: labelOf(target, name), at };
}

/** `at:` with `on: digest`, as `HH:MM`; required with it and meaningless without it. */
function digestAt(raw: unknown, on: readonly NotifyEventKind[]): string | null {
  const digest = on.includes('digest');
  if (raw === undefined || raw === null) {
    if (digest) throw new Skip('on: digest needs at:, the local time to send it, e.g. at: "07:30"');
    return null;
  }
  if (!digest) throw new Skip('at: is the time of the digest: add digest to on:, or remove at:');
  const m = typeof raw === 'string' ? /^(\d{1,2}):(\d{2})$/.exec(raw.trim()) : null;
  const [h, min] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(h < 24 && min < 60))
    throw new Skip(
      `at: ${JSON.stringify(raw)} is not a time of day; write it as "HH:MM" in quotes, e.g. at: "07:30"`,
    );
  return `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`;
}

function eventsOf(raw: unknown): NotifyEventKind[] {
  if (raw === undefined || raw === null) return [...DEFAULT_ON];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
  const hint = `expected some of ${NOTIFY_EVENTS.join(', ')}`;
  if (!list || list.length === 0) throw new Skip(`on: ${hint}, e.g. [done, failed, needs-you]`);
  const events = list.map((e) => (typeof e === 'string' ? e.trim() : e));
  const bad = events.find((e) => !(NOTIFY_EVENTS as readonly unknown[]).includes(e));
  if (bad !== undefined) throw new Skip(`on: ${JSON.stringify(bad)} is not an event; ${hint}`);
  return [...new Set(events as NotifyEventKind[])];
}

function checkUrl(url: string): void {
  const bad = badPlaceholder(url);
  if (bad) throw new Skip(`webhook: ${JSON.stringify(bad)} is not a variable; write \${NAME}`);
  // A URL that is wholly a variable (a Slack webhook kept out of the file) is checked when sent.
  if (/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(url)) return;
  let u: URL | null = null;
  try {
    u = new URL(url.replace(VAR, 'x'));
  } catch {
    // said below
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
    throw new Skip(`webhook: ${shownUrl(url)} is not an http or https URL`);
}

function headersOf(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isMap(raw)) throw new Skip('headers: expected a mapping, e.g. {Authorization: Bearer ${NTFY_TOKEN}}');
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!HEADER_NAME.test(name)) throw new Skip(`headers: ${JSON.stringify(name)} is not a header name`);
    const v = text(value);
    // The value is never shown: it may be a token.
    if (v === null || /[\r\n\0]/.test(v))
      throw new Skip(`headers: the value of ${name} must be one line of text`);
    const bad = badPlaceholder(v);
    if (bad)
      throw new Skip(`headers: ${name} has ${JSON.stringify(bad)}, which is not a variable; write \${NAME}`);
    out[name] = v;
  }
  return out;
}

function argsOf(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw.map(text) : null;
  if (!list || list.some((a) => a === null))
    throw new Skip('args: expected a list of words, e.g. [--title, overnight]');
  return list as string[];
}

/**
 * Every valid target, and one message per skipped one naming it (its place in the list and what
 * it is) and the fix. Messages never quote a header value or a URL's path.
 */
export function parseTargets(raw: unknown, home: string): { targets: NotifyTarget[]; problems: string[] } {
  if (raw === undefined || raw === null) return { targets: [], problems: [] };
  if (!Array.isArray(raw))
    return {
      targets: [],
      problems: ['notify: expected a list of targets, each starting with "- ", e.g. "- desktop: true"'],
    };
  const targets: NotifyTarget[] = [];
  const problems: string[] = [];
  raw.forEach((item, i) => {
    const where = `notify target ${i + 1}`;
    try {
      const { bare, on, label, at } = one(item, home);
      const id = idOf(bare);
      const same = targets.find((o) => o.id === id);
      if (same) throw new Skip(`sends to the same place as ${same.label}; merge their on: lists`);
      targets.push({ ...bare, id, label, on, ...(at ? { at } : {}) } as NotifyTarget);
    } catch (err) {
      if (!(err instanceof Skip)) throw err;
      const what = describeRaw(item);
      problems.push(`${where}${what ? ` (${what})` : ''}: ${err.message}`);
    }
  });
  return { targets, problems };
}

/** What a raw target is, as far as can be said without quoting a secret. */
function describeRaw(item: unknown): string {
  if (!isMap(item)) return '';
  if (typeof item.name === 'string' && item.name.trim()) return item.name.trim().slice(0, 60);
  if (typeof item.webhook === 'string') return `webhook to ${shownUrl(item.webhook.trim())}`;
  if (typeof item.command === 'string') return `command ${item.command.slice(0, 80)}`;
  return item.desktop !== undefined ? 'desktop' : '';
}
