import { toolProblem } from '../agent/tools.js';
import { isBackend } from '../run/backend.js';
import { domainProblem } from '../sandbox/policy.js';
import { JUNIT_ACCEPTS, junitPath } from '../verify/junit-path.js';
import { DURATION_HINT, parseDuration } from './duration.js';

// The kinds of value a setting takes, what each accepts, and the parse of one raw value. Pure.

export const PERMISSION_MODES = [
  'acceptEdits',
  'auto',
  'bypassPermissions',
  'default',
  'dontAsk',
  'plan',
] as const;
/**
 * A plain run's tools when none were chosen. No bare Write or Edit: a rule without a path lets the
 * agent write anywhere the person can; acceptEdits already lets it write below its working directory.
 */
export const DEFAULT_ALLOWED_TOOLS = ['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch'];

export type Kind =
  | 'path'
  | 'command'
  | 'model'
  | 'positive-duration'
  | 'duration'
  | 'count'
  | 'permission-mode'
  | 'tools'
  | 'money'
  | 'size'
  | 'boolean'
  | 'backend'
  | 'shell'
  | 'junit-path'
  | 'domains'
  | 'directories';

export const ACCEPTS: Record<Kind, string> = {
  path: 'expected a directory path',
  command: 'expected a command name or an absolute path',
  model: 'expected a model name or alias such as opus, sonnet or claude-opus-4-1',
  'positive-duration': `expected ${DURATION_HINT}, greater than zero`,
  duration: `expected ${DURATION_HINT}`,
  count: 'expected a whole number, 0 or more',
  'permission-mode': `expected one of ${PERMISSION_MODES.join(', ')}`,
  tools: 'expected a list of tool names, e.g. [Read, Write, "Bash(git log:*)"] or "Read,Write"',
  money: 'expected an amount in USD greater than zero, e.g. 25 or 7.50',
  size: 'expected a size such as 256MB, 1GB or 500KB',
  boolean: 'expected true or false',
  backend: 'expected tmux, detached or slurm',
  shell: 'expected a shell command, such as "npm test"',
  'junit-path': JUNIT_ACCEPTS,
  domains:
    'expected a list of domains, e.g. [packages.example.com, "*.example.net"] or ' +
    '"pkgs.example.org,files.example.org"',
  directories: 'expected a list of absolute directory paths (or ~/…), e.g. [~/.cache/pip]',
};

/** `why`: what is wrong with this value in particular, when more can be said than ACCEPTS. */
type Parsed = { ok: true; value: unknown } | { ok: false; why?: string };

export function parseValue(kind: Kind, raw: unknown, home: string): Parsed {
  const text = typeof raw === 'number' ? String(raw) : raw;
  switch (kind) {
    case 'path':
    case 'command': {
      if (typeof text !== 'string' || text.trim() === '') return { ok: false };
      const expanded = text.startsWith('~/') ? home + text.slice(1) : text === '~' ? home : text;
      return { ok: true, value: expanded };
    }
    case 'model':
      return typeof text === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:[\]-]*$/.test(text)
        ? { ok: true, value: text }
        : { ok: false };
    case 'positive-duration':
    case 'duration': {
      const seconds = typeof text === 'string' ? parseDuration(text) : undefined;
      if (seconds === undefined || (kind === 'positive-duration' && seconds <= 0)) return { ok: false };
      return { ok: true, value: seconds };
    }
    case 'count':
      return typeof text === 'string' && /^\d+$/.test(text.trim())
        ? { ok: true, value: Number(text) }
        : { ok: false };
    case 'permission-mode':
      return (PERMISSION_MODES as readonly unknown[]).includes(text)
        ? { ok: true, value: text }
        : { ok: false };
    case 'size': {
      const m = typeof text === 'string' ? /^(\d+(?:\.\d+)?)\s*(b|kb?|mb?|gb?)?$/i.exec(text.trim()) : null;
      if (!m) return { ok: false };
      const unit = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[
        (m[2] ?? 'b')[0]?.toLowerCase() as 'b' | 'k' | 'm' | 'g'
      ];
      return { ok: true, value: Math.round(Number(m[1]) * unit) };
    }
    case 'money': {
      const amount =
        typeof text === 'string' && /^\$?\d+(\.\d+)?$/.test(text.trim())
          ? Number(text.trim().replace('$', ''))
          : NaN;
      return amount > 0 ? { ok: true, value: amount } : { ok: false };
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      const word = typeof text === 'string' ? text.trim().toLowerCase() : '';
      if (['true', 'yes', 'on', '1'].includes(word)) return { ok: true, value: true };
      if (['false', 'no', 'off', '0'].includes(word)) return { ok: true, value: false };
      return { ok: false };
    }
    case 'backend':
      return isBackend(text) ? { ok: true, value: text } : { ok: false };
    case 'junit-path': {
      const path = junitPath(text);
      return path === null ? { ok: false } : { ok: true, value: path };
    }
    case 'shell':
      return typeof text === 'string' && text.trim() !== '' && text.length <= 4096 && !text.includes('\0')
        ? { ok: true, value: text.trim() }
        : { ok: false };
    case 'domains':
    case 'directories': {
      const list = listOf(raw);
      if (!list) return { ok: false };
      if (kind === 'domains') {
        const why = list.map((d) => domainProblem(d.toLowerCase())).find((p) => p !== null);
        return why ? { ok: false, why } : { ok: true, value: list.map((d) => d.toLowerCase()) };
      }
      const dirs = list.map((d) => (d === '~' ? home : d.startsWith('~/') ? home + d.slice(1) : d));
      const bad = dirs.find((d) => !d.startsWith('/') || d.length > 4096 || d.includes('\0') || d === '/');
      if (bad !== undefined)
        return { ok: false, why: `"${bad.slice(0, 80)}" is not an absolute directory below /` };
      return { ok: true, value: dirs.map((d) => d.replace(/\/+$/, '')) };
    }
    case 'tools': {
      const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
      if (!list || list.some((t) => typeof t !== 'string')) return { ok: false };
      const tools = (list as string[]).map((t) => t.trim()).filter((t) => t !== '');
      // A name Claude Code does not know would grant nothing all night: refused, naming it.
      const why = tools.map(toolProblem).find((p) => p !== null);
      if (why) return { ok: false, why };
      return tools.length > 0 ? { ok: true, value: tools } : { ok: false };
    }
  }
}

/** A list from YAML (a sequence) or a flag or variable (commas); empty entries dropped, at most 100. */
function listOf(raw: unknown): string[] | null {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
  if (!list || list.length > 100 || list.some((t) => typeof t !== 'string')) return null;
  return (list as string[]).map((t) => t.trim()).filter((t) => t !== '');
}
