import type { LocalTime } from '../local-time.js';
import type { NotifyEvent } from './events.js';
import { expandVars, type CommandTarget, type WebhookTarget } from './targets.js';

// What each kind of target is sent: the words of a message, and the request, command or desktop
// note that carries them. Pure: vars, clock text and the event are given.

type Kind = NotifyEvent['event'];

/** The message's title line, short enough for a phone's lock screen. */
export function headline(e: NotifyEvent, clock: LocalTime): string {
  const until = e.until ? ` until ${clock.hm(new Date(e.until))}` : '';
  switch (e.event) {
    case 'done':
      if (e.verify?.verdict === 'verified')
        return e.report ? 'done, verified: the report is ready' : 'done, verified';
      if (e.verify?.verdict === 'unchanged') return 'done, unchanged: nothing on the branch';
      return e.report ? 'done: the report is ready' : 'done';
    case 'needs-you':
      if (e.state === 'done' && e.verify?.verdict === 'not-verified') return 'done, NOT verified: needs you';
      if (e.state === 'done' && e.verify?.verdict === 'unchanged') return 'done, unchanged: needs you';
      if (e.state === 'done' && e.review?.verdict === 'reject')
        return 'done, the review rejects it: needs you';
      if (e.state === 'done' && e.verify?.verdict === 'error')
        return 'done, the check gave no result: needs you';
      return e.state === 'done' ? 'done without a report: needs you' : 'failed: needs you';
    case 'failed':
      return 'failed';
    case 'restart':
      return 'restarted';
    case 'waiting':
      return `waiting${until}`;
    case 'report-late':
      return `report late${until}`;
    case 'overage':
      return `paid extra usage${until ? `: waiting${until}` : ''}`;
    case 'digest':
      return 'the morning digest';
    case 'test':
      return 'test notification';
  }
}

export function title(e: NotifyEvent, clock: LocalTime): string {
  return `overnight: ${headline(e, clock)}`;
}

/** The body: which run, why, and where to look next; the digest's own text for the digest. */
export function message(e: NotifyEvent): string {
  if (e.event === 'digest') return e.text ?? e.reason;
  const lines = [e.run === 'test' ? 'overnight notify test' : `run ${e.run}`];
  if (e.task) lines.push(`task: ${e.task}`);
  // The check's verdict on a line of its own, first; the reason that ends with it is not said twice.
  const check = e.verify?.line ?? '';
  if (check) lines.push(check);
  if (e.review?.line) lines.push(e.review.line);
  const reason = check && e.reason.endsWith(`; ${check}`) ? e.reason.slice(0, -check.length - 2) : e.reason;
  if (reason) lines.push(reason);
  if (e.report) lines.push(`report: ${e.report}`);
  else if (e.run !== 'test') lines.push(`workspace: ${e.workspace}`);
  if (e.run !== 'test') lines.push(`overnight status ${e.run}`);
  return lines.join('\n');
}

/** How urgent each event is, in ntfy's words (its Priority header) and the desktop's. */
const URGENCY: Record<Kind, { ntfy: string; tag: string; desktop: 'low' | 'normal' | 'critical' }> = {
  'needs-you': { ntfy: 'high', tag: 'warning', desktop: 'critical' },
  failed: { ntfy: 'high', tag: 'x', desktop: 'critical' },
  overage: { ntfy: 'high', tag: 'money_with_wings', desktop: 'critical' },
  done: { ntfy: 'default', tag: 'white_check_mark', desktop: 'normal' },
  'report-late': { ntfy: 'default', tag: 'hourglass', desktop: 'normal' },
  restart: { ntfy: 'low', tag: 'arrows_counterclockwise', desktop: 'low' },
  waiting: { ntfy: 'low', tag: 'hourglass', desktop: 'low' },
  digest: { ntfy: 'default', tag: 'sunrise', desktop: 'normal' },
  test: { ntfy: 'default', tag: 'test_tube', desktop: 'normal' },
};

/** ntfy takes 4,096 bytes of message (more becomes an attachment, or is refused); Slack 40,000 characters. */
const NTFY_MAX = 4000;
const SLACK_MAX = 39_000;

/** A long text (the digest) cut at a line to fit, saying where the rest is. */
export function fit(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const more = '\n… (the rest: overnight digest)';
  const out: string[] = [];
  let size = Buffer.byteLength(more);
  for (const line of text.split('\n')) {
    size += Buffer.byteLength(line) + 1;
    if (size > maxBytes) break;
    out.push(line);
  }
  return out.join('\n') + more;
}

/** HTTP header values are Latin-1: anything else goes RFC 2047 encoded, which ntfy decodes. */
export function headerText(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(flat)) return flat;
  return `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

/** Slack's mrkdwn: &, < and > are markup and must be escaped. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** What a JSON receiver gets: the event, with the words a person would read. */
export function eventJson(e: NotifyEvent, clock: LocalTime): Record<string, unknown> {
  return { ...e, title: title(e, clock), message: message(e) };
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type Built<T> = { ok: true; value: T } | { ok: false; error: string };

/** Where `${NAME}` values come from: a run's launch environment, or this shell for `notify test`. */
export const LAUNCH_VARS = "the run's launch environment";

const missingVar = (where: string, name: string, from: string): Built<never> => ({
  ok: false,
  error:
    `${where} names \${${name}}, which ${from} does not set; ` +
    `export ${name} in the shell you launch runs from`,
});

/** The POST for a webhook in its format; the person's headers last, so they can override ours. */
export function webhookRequest(
  t: WebhookTarget,
  e: NotifyEvent,
  vars: Record<string, string | undefined>,
  clock: LocalTime,
  from = LAUNCH_VARS,
): Built<HttpRequest> {
  const url = expandVars(t.url, vars);
  if (!url.ok) return missingVar('the webhook URL', url.missing, from);
  if (!/^https?:\/\/[^/]/i.test(url.value))
    return { ok: false, error: 'the webhook URL is not an http or https URL' };
  let headers: Record<string, string>;
  let body: string;
  if (t.format === 'ntfy') {
    const u = URGENCY[e.event];
    headers = {
      'Content-Type': 'text/plain; charset=utf-8',
      Title: headerText(title(e, clock)),
      Priority: u.ntfy,
      Tags: u.tag,
    };
    body = fit(message(e), NTFY_MAX);
  } else if (t.format === 'slack') {
    headers = { 'Content-Type': 'application/json' };
    const text = `*${slackEscape(title(e, clock))}*\n${slackEscape(message(e))}`;
    body = JSON.stringify({ text: fit(text, SLACK_MAX) });
  } else {
    headers = { 'Content-Type': 'application/json' };
    body = JSON.stringify(eventJson(e, clock));
  }
  for (const [name, raw] of Object.entries(t.headers)) {
    const value = expandVars(raw, vars);
    if (!value.ok) return missingVar(`the header ${name}`, value.missing, from);
    for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
    headers[name] = headerText(value.value);
  }
  return { ok: true, value: { url: url.value, headers, body } };
}

export interface CommandCall {
  file: string;
  args: string[];
  /** Added to the environment the command runs in. */
  env: Record<string, string>;
  stdin: string;
}

/** A command target gets the event as OVERNIGHT_* variables and as JSON on stdin; no shell. */
export function commandCall(
  t: CommandTarget,
  e: NotifyEvent,
  vars: Record<string, string | undefined>,
  clock: LocalTime,
  from = LAUNCH_VARS,
): Built<CommandCall> {
  const args: string[] = [];
  for (const a of t.args) {
    const x = expandVars(a, vars);
    if (!x.ok) return missingVar('an argument', x.missing, from);
    args.push(x.value);
  }
  const env = {
    OVERNIGHT_EVENT: e.event,
    OVERNIGHT_RUN: e.run,
    OVERNIGHT_STATE: e.state,
    OVERNIGHT_REASON: e.reason,
    OVERNIGHT_REPORT: e.report ?? '',
    OVERNIGHT_WORKSPACE: e.workspace,
    OVERNIGHT_VERDICT: e.verify?.verdict ?? '',
    OVERNIGHT_REVIEW: e.review?.verdict ?? '',
  };
  return {
    ok: true,
    value: { file: t.command, args, env, stdin: JSON.stringify(eventJson(e, clock)) + '\n' },
  };
}

/** The desktop's notifier and its arguments: the words travel as argv, never as script source. */
export function desktopCall(
  platform: string,
  e: NotifyEvent,
  clock: LocalTime,
): { program: 'notify-send' | 'osascript'; args: string[] } | null {
  const head = title(e, clock);
  const body = fit(message(e), NTFY_MAX);
  if (platform === 'darwin') {
    const script = [
      'on run argv',
      'display notification (item 2 of argv) with title (item 1 of argv)',
      'end run',
    ];
    return { program: 'osascript', args: [...script.flatMap((l) => ['-e', l]), head, body] };
  }
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd')
    return {
      program: 'notify-send',
      args: ['--app-name=overnight', `--urgency=${URGENCY[e.event].desktop}`, '--', head, body],
    };
  return null;
}

/**
 * Variables a desktop notifier needs to reach the person's session; a pass from cron has none of
 * them, the launch environment has.
 */
export const DESKTOP_VARS = ['DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'];
