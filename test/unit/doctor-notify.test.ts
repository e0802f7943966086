import { describe, expect, test } from 'vitest';

import type { CheckResult } from '../../src/core/doctor/checks.js';
import { checkNotify, type NotifyTargetFacts } from '../../src/core/doctor/notify.js';
import type { NotifyTarget } from '../../src/core/notify/targets.js';

const on = ['done', 'failed', 'needs-you'] as NotifyTarget['on'];
const ntfy: NotifyTarget = {
  kind: 'webhook',
  id: 'a',
  label: 'phone',
  on,
  url: 'https://ntfy.sh/t0p1c',
  format: 'ntfy',
  headers: { Authorization: 'Bearer ${NTFY_TOKEN}' },
};
const slackFromEnv: NotifyTarget = { ...ntfy, label: 'slack', url: '${SLACK}', headers: {}, format: 'slack' };
const cmd: NotifyTarget = {
  kind: 'command',
  id: 'b',
  label: 'command /x/tell',
  on,
  command: '/x/tell',
  args: [],
};
const desktop: NotifyTarget = { kind: 'desktop', id: 'c', label: 'desktop', on };

interface Case {
  name: string;
  facts: NotifyTargetFacts;
  want: Partial<CheckResult>;
}

describe('doctor: notify targets', () => {
  test('none: ok, saying nobody is told', () => {
    expect(checkNotify([])).toEqual([
      { name: 'notify', status: 'ok', detail: expect.stringMatching(/^no targets: nobody is told/) },
    ]);
  });

  test.each<Case>([
    {
      name: 'a webhook whose token this shell sets',
      facts: { target: ntfy, vars: { NTFY_TOKEN: 'tk' } },
      want: { status: 'ok', detail: 'phone, on done, failed, needs-you' },
    },
    {
      name: 'a token this shell does not set',
      facts: { target: ntfy, vars: {} },
      want: {
        status: 'warning',
        detail: expect.stringMatching(/^phone names \$\{NTFY_TOKEN\}, which this shell does not set/),
        fix: 'export NTFY_TOKEN in the shell you launch from, then overnight notify test',
      },
    },
    {
      name: 'a URL from a variable that is no URL',
      facts: { target: slackFromEnv, vars: { SLACK: 'hooks.slack.com/x' } },
      want: { status: 'problem', detail: 'slack: its URL is not an http or https URL' },
    },
    {
      name: 'a URL from a variable, shown without its path',
      facts: { target: slackFromEnv, vars: { SLACK: 'https://hooks.slack.com/services/s3cr3t' } },
      want: { status: 'ok', detail: 'slack (https://hooks.slack.com), on done, failed, needs-you' },
    },
    {
      name: 'an executable command',
      facts: { target: cmd, vars: {}, command: 'ok' },
      want: { status: 'ok', detail: 'command /x/tell, on done, failed, needs-you' },
    },
    {
      name: 'a named command that is missing',
      facts: { target: { ...cmd, label: 'pager' }, vars: {}, command: 'missing' },
      want: { status: 'problem', detail: 'pager (/x/tell) does not exist' },
    },
    {
      name: 'a missing command',
      facts: { target: cmd, vars: {}, command: 'missing' },
      want: { status: 'problem', detail: 'command /x/tell does not exist' },
    },
    {
      name: 'a command that is not executable',
      facts: { target: cmd, vars: {}, command: 'not-executable' },
      want: { status: 'problem', fix: 'chmod +x /x/tell' },
    },
    {
      name: 'notify-send found',
      facts: { target: desktop, vars: {}, notifier: { name: 'notify-send', path: '/usr/bin/notify-send' } },
      want: { status: 'ok', detail: 'desktop: /usr/bin/notify-send, on done, failed, needs-you' },
    },
    {
      name: 'notify-send missing',
      facts: { target: desktop, vars: {}, notifier: { name: 'notify-send', path: null } },
      want: { status: 'warning', detail: 'desktop: notify-send was not found on PATH' },
    },
    {
      name: 'no notifier known here',
      facts: { target: desktop, vars: {}, notifier: null },
      want: { status: 'warning' },
    },
  ])('$name → $want.status', ({ facts, want }) => {
    expect(checkNotify([facts])).toEqual([expect.objectContaining({ name: 'notify', ...want })]);
  });

  test('a secret URL path never shows', () => {
    const [r] = checkNotify([
      { target: slackFromEnv, vars: { SLACK: 'https://hooks.slack.com/services/s3cr3t' } },
    ]);
    expect(JSON.stringify(r)).not.toContain('s3cr3t');
  });
});
