import { runWithInput, type CommandResult } from '../adapters/command.js';
import { postHttp } from '../adapters/http.js';
import { resolveExecutable } from '../adapters/which.js';
import type { LocalTime } from '../core/local-time.js';
import { maskSecrets } from '../core/mask.js';
import type { Outcome } from '../core/notify/delivery.js';
import type { NotifyEvent } from '../core/notify/events.js';
import { commandCall, desktopCall, webhookRequest } from '../core/notify/format.js';
import type { NotifyTarget } from '../core/notify/targets.js';
import { oneLine } from '../core/text.js';

// One attempt to tell one target about one event, and what it answered, in words.

export interface SendContext {
  /** Values for `${NAME}` (the run's launch environment, or the shell's for `notify test`). */
  vars: Record<string, string | undefined>;
  /** Where `vars` came from, for an error naming one it lacks (default: the run's launch environment). */
  varsFrom?: string;
  /** The environment commands and desktop notifiers run in (the pass's own). */
  env: Record<string, string | undefined>;
  timeoutMs: number;
  clock: LocalTime;
  platform: string;
}

export async function sendTo(target: NotifyTarget, event: NotifyEvent, c: SendContext): Promise<Outcome> {
  const outcome = await attempt(target, event, c);
  // Whatever a target echoes back, a secret it was given never reaches status or the events log.
  return outcome.ok
    ? { ...outcome, answer: scrub(outcome.answer, c.vars) }
    : { ...outcome, error: scrub(outcome.error, c.vars) };
}

async function attempt(target: NotifyTarget, event: NotifyEvent, c: SendContext): Promise<Outcome> {
  switch (target.kind) {
    case 'webhook': {
      const req = webhookRequest(target, event, c.vars, c.clock, c.varsFrom);
      if (!req.ok) return { ok: false, error: req.error, permanent: true };
      const r = await postHttp(req.value.url, req.value.headers, req.value.body, c.timeoutMs);
      if ('error' in r) return { ok: false, error: r.error };
      const said = `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`;
      if (r.status >= 200 && r.status < 300) return { ok: true, answer: said };
      const body = printable(r.body);
      if (r.status >= 300 && r.status < 400)
        return {
          ok: false,
          error: `${said}: the URL redirects; give the address it redirects to`,
          permanent: true,
        };
      // A request the target refuses as such is refused again; a busy or broken one may recover.
      const permanent = r.status >= 400 && r.status < 500 && ![408, 425, 429].includes(r.status);
      return { ok: false, error: body ? `${said}: ${body}` : said, permanent };
    }
    case 'command': {
      const call = commandCall(target, event, c.vars, c.clock, c.varsFrom);
      if (!call.ok) return { ok: false, error: call.error, permanent: true };
      const env = { ...c.env, ...call.value.env };
      const r = await runWithInput(call.value.file, call.value.args, env, call.value.stdin, c.timeoutMs);
      return judged(r);
    }
    case 'desktop': {
      const call = desktopCall(c.platform, event, c.clock);
      if (!call)
        return { ok: false, error: `no desktop notifier is known on ${c.platform}`, permanent: true };
      const program = resolveExecutable(call.program, c.env.PATH ?? '');
      if (!program) {
        const hint = call.program === 'notify-send' ? ' (install libnotify-bin or libnotify)' : '';
        return { ok: false, error: `${call.program} was not found on PATH${hint}`, permanent: true };
      }
      // The person's session (display, bus) comes from the launch environment: cron has none.
      const env = { ...c.env, ...c.vars };
      const r = await runWithInput(program, call.args, env, '', c.timeoutMs);
      return judged(r, call.program);
    }
  }
}

function judged(r: CommandResult, name?: string): Outcome {
  const who = name ? `${name}: ` : '';
  if ('error' in r) return { ok: false, error: `${who}${r.error}`, permanent: r.missing === true };
  const out = printable(r.stdout);
  if (r.exitCode === 0) return { ok: true, answer: `${who}exit 0${out ? `: ${out}` : ''}` };
  const how = r.signal ? `killed by ${r.signal}` : `exit ${r.exitCode}`;
  const said = printable(r.stderr) || out;
  return { ok: false, error: `${who}${how}${said ? `: ${said}` : ''}` };
}

/** The first line a target printed, made safe to show: no control characters, not too long. */
function printable(text: string): string {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  // eslint-disable-next-line no-control-regex -- what a remote server or script sent is shown inert
  return oneLine(first.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' '), 160);
}

/** The values it was given, and every URL's password and query values, masked. */
function scrub(text: string, vars: Record<string, string | undefined>): string {
  let out = maskSecrets(text);
  for (const v of Object.values(vars)) if (v && v.length >= 4) out = out.split(v).join('***');
  return out;
}
