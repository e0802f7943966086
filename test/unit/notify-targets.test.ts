import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';

import { resolveSettings } from '../../src/core/config/settings.js';
import {
  expandVars,
  parseTargets,
  shownUrl,
  varsOf,
  type NotifyTarget,
} from '../../src/core/notify/targets.js';

const HOME = '/home/ada';
const targets = (yaml: string) => parseTargets(parse(yaml) as unknown, HOME);

interface Valid {
  name: string;
  yaml: string;
  want: Partial<NotifyTarget>;
}

describe('notify targets: kept', () => {
  test.each<Valid>([
    {
      name: 'a webhook: json by default, on done, failed and needs-you',
      yaml: '- webhook: https://example.com/hook',
      want: {
        kind: 'webhook',
        url: 'https://example.com/hook',
        format: 'json',
        headers: {},
        on: ['done', 'failed', 'needs-you'],
        label: 'json webhook to example.com',
      },
    },
    {
      name: 'ntfy with a token header naming a variable',
      yaml: '- {webhook: "https://ntfy.sh/t0p1c", format: ntfy, headers: {Authorization: "Bearer ${NTFY_TOKEN}"}}',
      want: {
        format: 'ntfy',
        headers: { Authorization: 'Bearer ${NTFY_TOKEN}' },
        label: 'ntfy webhook to ntfy.sh',
      },
    },
    {
      name: 'a Slack URL kept wholly in a variable',
      yaml: '- {webhook: "${SLACK_WEBHOOK}", format: slack}',
      want: { url: '${SLACK_WEBHOOK}', label: 'slack webhook to a URL from the environment' },
    },
    {
      name: 'on: as a comma-separated string, repeats dropped',
      yaml: '- {desktop: true, on: "restart, waiting,restart"}',
      want: { kind: 'desktop', on: ['restart', 'waiting'], label: 'desktop' },
    },
    {
      name: 'a command under ~, its args as words',
      yaml: '- {command: ~/bin/tell, args: [--loud, 3], name: phone}',
      want: { kind: 'command', command: '/home/ada/bin/tell', args: ['--loud', '3'], label: 'phone' },
    },
    {
      name: 'every event',
      yaml: '- {desktop: true, on: [done, failed, needs-you, restart, waiting, report-late, overage]}',
      want: { on: ['done', 'failed', 'needs-you', 'restart', 'waiting', 'report-late', 'overage'] },
    },
    {
      name: 'the digest at a local time',
      yaml: '- {webhook: "https://ntfy.sh/t", format: ntfy, on: digest, at: "07:30"}',
      want: { on: ['digest'], at: '07:30' },
    },
    {
      name: 'the digest with an hour of one digit, and the transitions too',
      yaml: '- {desktop: true, on: [digest, failed], at: "7:05"}',
      want: { on: ['digest', 'failed'], at: '07:05' },
    },
  ])('$name → kept', ({ yaml, want }) => {
    const r = targets(yaml);
    expect(r.problems).toEqual([]);
    expect(r.targets).toHaveLength(1);
    expect(r.targets[0]).toMatchObject(want);
    expect(r.targets[0]?.id).toMatch(/^[0-9a-f]{12}$/);
  });
});

interface Invalid {
  name: string;
  yaml: string;
  want: RegExp;
}

describe('notify targets: skipped, each with what is wrong and the fix', () => {
  test.each<Invalid>([
    { name: 'not a list', yaml: 'webhook: https://x.org', want: /^notify: expected a list of targets/ },
    { name: 'an item that is a word', yaml: '- desktop', want: /^notify target 1: expected a mapping/ },
    { name: 'no kind', yaml: '- {on: [done]}', want: /give one of webhook:, command: or desktop: true/ },
    {
      name: 'two kinds',
      yaml: '- {webhook: "https://x.org", desktop: true}',
      want: /has both webhook: and desktop:; give one per target/,
    },
    {
      name: 'an unknown key',
      yaml: '- {desktop: true, colour: red}',
      want: /unknown key "colour"; a target knows name, on/,
    },
    {
      name: 'a key of another kind',
      yaml: '- {desktop: true, format: ntfy}',
      want: /format: does not apply to a desktop target/,
    },
    {
      name: 'an unknown format',
      yaml: '- {webhook: "https://ntfy.sh/x", format: ntfi}',
      want: /notify target 1 \(webhook to https:\/\/ntfy\.sh\): format: "ntfi" is not one of json, ntfy, slack$/,
    },
    {
      name: 'not http',
      yaml: '- webhook: ftp://example.com/x',
      want: /webhook: ftp:\/\/example\.com is not an http or https URL/,
    },
    { name: 'not a URL', yaml: '- webhook: example', want: /webhook: "example" is not an http or https URL/ },
    {
      name: 'a placeholder typo',
      yaml: '- webhook: "https://x.org/${TOPIC"',
      want: /"\$\{TOPIC" is not a variable; write \$\{NAME\}/,
    },
    {
      name: 'an unknown event',
      yaml: '- {desktop: true, on: [done, digets]}',
      want: /on: "digets" is not an event; expected some of done, failed/,
    },
    { name: 'an empty on', yaml: '- {desktop: true, on: []}', want: /on: expected some of/ },
    {
      name: 'the digest without a time',
      yaml: '- {desktop: true, on: [digest]}',
      want: /on: digest needs at:, the local time to send it, e\.g\. at: "07:30"/,
    },
    {
      name: 'a time without the digest',
      yaml: '- {desktop: true, at: "07:30"}',
      want: /at: is the time of the digest: add digest to on:, or remove at:/,
    },
    {
      name: 'a time of day that is not one',
      yaml: '- {desktop: true, on: digest, at: "25:00"}',
      want: /at: "25:00" is not a time of day; write it as "HH:MM" in quotes/,
    },
    {
      name: 'a time read as a number (sexagesimal YAML 1.1, or no colon)',
      yaml: '- {desktop: true, on: digest, at: 730}',
      want: /at: 730 is not a time of day/,
    },
    {
      name: 'a relative command',
      yaml: '- command: notify.sh',
      want: /"notify\.sh" is not an absolute path; passes run from cron/,
    },
    {
      name: 'args that are not words',
      yaml: '- {command: /bin/true, args: {a: 1}}',
      want: /args: expected a list of words/,
    },
    {
      name: 'desktop: false',
      yaml: '- desktop: false',
      want: /desktop: expected true \(remove the target to turn it off\)/,
    },
    {
      name: 'a bad header name',
      yaml: '- {webhook: "https://x.org", headers: {"Bad Name": x}}',
      want: /headers: "Bad Name" is not a header name/,
    },
    {
      name: 'the same place twice',
      yaml: '- {webhook: "https://x.org/a", on: [done]}\n- {webhook: "https://x.org/a", on: [failed]}',
      want: /^notify target 2 \(webhook to https:\/\/x\.org\): sends to the same place as json webhook to x\.org; merge/,
    },
  ])('$name → skipped', ({ yaml, want }) => {
    const r = targets(yaml);
    expect(r.problems).toEqual([expect.stringMatching(want)]);
  });

  test('a header value is never quoted in a message (it may be a token)', () => {
    const r = targets('- {webhook: "https://x.org", headers: {Authorization: "Bearer sk-secret\\nX"}}');
    expect(r.problems[0]).toMatch(/the value of Authorization must be one line/);
    expect(r.problems.join()).not.toContain('sk-secret');
  });

  test('a webhook URL path is never quoted (a Slack or ntfy URL is a secret)', () => {
    const r = targets('- {webhook: "https://hooks.slack.com/services/T0/B0/s3cr3t", format: slak}');
    expect(r.problems[0]).toContain('hooks.slack.com');
    expect(r.problems.join()).not.toContain('s3cr3t');
  });

  test('one bad target does not take the good ones with it', () => {
    const r = targets('- desktop: true\n- {webhook: "https://x.org", format: nope}\n- command: /bin/true');
    expect(r.targets.map((t) => t.kind)).toEqual(['desktop', 'command']);
    expect(r.problems).toEqual([expect.stringMatching(/^notify target 2 /)]);
  });
});

describe('target identity and variables', () => {
  test('the id follows where a target sends, not its name or its events', () => {
    const a = targets('- {webhook: "https://x.org/a", name: one, on: [done]}').targets[0];
    const b = targets('- {webhook: "https://x.org/a", name: two, on: [failed]}').targets[0];
    const c = targets('- {webhook: "https://x.org/b"}').targets[0];
    expect(a?.id).toBe(b?.id);
    expect(a?.id).not.toBe(c?.id);
  });

  test('the variables a target names, from its URL, headers and args', () => {
    const [w, c] = targets(
      '- {webhook: "https://${HOST}/x", headers: {A: "${TOKEN} ${HOST}"}}\n- {command: /bin/x, args: ["${ARG}"]}',
    ).targets;
    expect(varsOf(w as NotifyTarget)).toEqual(['HOST', 'TOKEN']);
    expect(varsOf(c as NotifyTarget)).toEqual(['ARG']);
  });

  test.each([
    { name: 'set', text: 'Bearer ${T}', vars: { T: 'abc' }, want: { ok: true, value: 'Bearer abc' } },
    { name: 'unset', text: 'Bearer ${T}', vars: {}, want: { ok: false, missing: 'T' } },
    { name: 'no variable', text: 'plain $T', vars: {}, want: { ok: true, value: 'plain $T' } },
  ])('expandVars, $name → $want.ok', ({ text, vars, want }) => {
    expect(expandVars(text, vars)).toEqual(want);
  });

  test.each([
    { url: 'https://ntfy.sh/secret-topic', want: 'https://ntfy.sh' },
    { url: 'http://127.0.0.1:8080/x?token=1', want: 'http://127.0.0.1:8080' },
    { url: '${SLACK}', want: 'a URL from the environment' },
    { url: 'a-very-long-thing-that-is-not-a-url', want: '"a-very-long-thing-that-i…"' },
  ])('shownUrl($url) → $want', ({ url, want }) => {
    expect(shownUrl(url)).toBe(want);
  });
});

describe('notify: in the settings', () => {
  const FILE = '/home/ada/.config/overnight/config.yaml';
  test('targets land in settings.notify; a bad one is a problem of the key notify, the rest kept', () => {
    const { settings, problems } = resolveSettings({
      home: HOME,
      env: {},
      file: { path: FILE, data: parse('notify:\n  - desktop: true\n  - webhook: nope\n') as unknown },
    });
    expect(settings.notify.map((t) => t.kind)).toEqual(['desktop']);
    expect(problems).toEqual([
      { key: 'notify', source: FILE, value: undefined, message: expect.stringMatching(/^notify target 2/) },
    ]);
  });

  test('the retry settings, from the file or the environment', () => {
    const { settings, problems } = resolveSettings({
      home: HOME,
      env: { OVERNIGHT_NOTIFY_BACKOFF: '0s', OVERNIGHT_NOTIFY_TRIES: '2' },
      file: { path: FILE, data: { notify_timeout: '3s' } },
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({ notifyTimeout: 3, notifyTries: 2, notifyBackoff: 0 });
  });

  test('an unknown key names notify among the known ones', () => {
    const { problems } = resolveSettings({ home: HOME, env: {}, file: { path: FILE, data: { alerts: [] } } });
    expect(problems[0]?.message).toMatch(
      /known keys: .*fallback_model, verify, verify_timeout, verify_budget, verify_junit, verify_unconfined, sandbox, review, review_budget, review_model, sandbox_network, sandbox_write, notify_timeout, notify_tries, notify_backoff, notify, slurm$/,
    );
  });
});
