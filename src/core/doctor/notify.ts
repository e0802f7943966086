import { expandVars, shownUrl, varsOf, type NotifyTarget } from '../notify/targets.js';
import type { CheckResult } from './checks.js';

// `overnight doctor` on the notification targets: can each be reached the way a pass would try?
// Nothing is sent (that is `overnight notify test`).

export interface NotifyTargetFacts {
  target: NotifyTarget;
  /** A command target's file. */
  command?: 'ok' | 'missing' | 'not-a-file' | 'not-executable';
  /** A desktop target's notifier (notify-send, osascript) as found on PATH; null when absent. */
  notifier?: { name: string; path: string | null } | null;
  /** `${NAME}` values from the shell runs are launched from (what they would capture). */
  vars: Record<string, string | undefined>;
}

export function checkNotify(facts: readonly NotifyTargetFacts[]): CheckResult[] {
  if (facts.length === 0)
    return [
      {
        name: 'notify',
        status: 'ok',
        detail: 'no targets: nobody is told when a run finishes, fails or needs you (notify: in config.yaml)',
      },
    ];
  return facts.map(checkOne);
}

function checkOne(f: NotifyTargetFacts): CheckResult {
  const t = f.target;
  const name = 'notify';
  const on = `on ${t.on.join(', ')}${t.at ? ` (the digest after ${t.at})` : ''}`;
  const unset = varsOf(t).filter((v) => f.vars[v] === undefined);
  if (unset.length > 0)
    return {
      name,
      status: 'warning',
      detail:
        `${t.label} names ${unset.map((v) => `\${${v}}`).join(', ')}, which this shell does not set: ` +
        'runs launched from here could not send to it',
      fix: `export ${unset.join(', ')} in the shell you launch from, then overnight notify test`,
    };
  switch (t.kind) {
    case 'webhook': {
      const url = expandVars(t.url, f.vars);
      if (url.ok && !/^https?:\/\/[^/]/i.test(url.value))
        return {
          name,
          status: 'problem',
          detail: `${t.label}: its URL is not an http or https URL`,
          fix: 'correct webhook: in config.yaml (or the variable it names)',
        };
      // A URL kept in a variable is shown as far as the label cannot: its scheme and host.
      const where = t.url.startsWith('${') && url.ok ? ` (${shownUrl(url.value)})` : '';
      return { name, status: 'ok', detail: `${t.label}${where}, ${on}` };
    }
    case 'command': {
      const problems = {
        missing: ['does not exist', 'correct command: in config.yaml'],
        'not-a-file': ['is not a file', 'give the path of the program itself in command:'],
        'not-executable': ['is not executable', `chmod +x ${t.command}`],
      } as const;
      const p = f.command && f.command !== 'ok' ? problems[f.command] : null;
      const which = t.label === `command ${t.command}` ? t.label : `${t.label} (${t.command})`;
      if (p) return { name, status: 'problem', detail: `${which} ${p[0]}`, fix: p[1] };
      return { name, status: 'ok', detail: `${which}, ${on}` };
    }
    case 'desktop': {
      const n = f.notifier;
      if (!n)
        return {
          name,
          status: 'warning',
          detail: 'desktop: no desktop notifier is known on this system',
          fix: 'remove desktop: true, or use a webhook or command target',
        };
      if (!n.path)
        return {
          name,
          status: 'warning',
          detail: `desktop: ${n.name} was not found on PATH`,
          fix:
            n.name === 'notify-send'
              ? 'install libnotify (apt-get install libnotify-bin), or remove desktop: true'
              : 'remove desktop: true, or use a webhook or command target',
        };
      return { name, status: 'ok', detail: `desktop: ${n.path}, ${on}` };
    }
  }
}
