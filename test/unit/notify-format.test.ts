import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import type { NotifyEvent } from '../../src/core/notify/events.js';
import {
  commandCall,
  desktopCall,
  headerText,
  headline,
  message,
  webhookRequest,
} from '../../src/core/notify/format.js';
import { parseLaunchEnv } from '../../src/core/notify/launch-env.js';
import type { CommandTarget, WebhookTarget } from '../../src/core/notify/targets.js';

const UTC = localTime('UTC');
const RUN = '2026-11-21-2315-survey-crdt';

function event(over: Partial<NotifyEvent> = {}): NotifyEvent {
  return {
    id: `${RUN}:512`,
    event: 'done',
    kinds: ['done'],
    run: RUN,
    state: 'done',
    reason: 'finished: REPORT.md written',
    at: '2026-11-22T07:40:00.000Z',
    report: `/runs/${RUN}/REPORT.md`,
    workspace: `/runs/${RUN}`,
    task: 'Survey CRDT libraries',
    ...over,
  };
}

function webhook(over: Partial<WebhookTarget> = {}): WebhookTarget {
  return {
    kind: 'webhook',
    id: 'abc123abc123',
    label: 'phone',
    on: ['done'],
    url: 'https://ntfy.sh/t0p1c',
    format: 'json',
    headers: {},
    ...over,
  };
}

describe('the words', () => {
  test.each<{ name: string; e: Partial<NotifyEvent>; want: string }>([
    { name: 'done with a report', e: {}, want: 'done: the report is ready' },
    {
      name: 'done without one',
      e: { event: 'needs-you', report: null },
      want: 'done without a report: needs you',
    },
    {
      name: 'failed, needing the person',
      e: { event: 'needs-you', state: 'failed' },
      want: 'failed: needs you',
    },
    { name: 'failed', e: { event: 'failed', state: 'failed' }, want: 'failed' },
    { name: 'restarted', e: { event: 'restart', state: 'running' }, want: 'restarted' },
    {
      name: 'waiting, with its end in local time',
      e: { event: 'waiting', state: 'waiting', until: '2026-11-22T04:05:00.000Z' },
      want: 'waiting until 04:05',
    },
    {
      name: 'report late',
      e: { event: 'report-late', until: '2026-11-22T08:05:00.000Z' },
      want: 'report late until 08:05',
    },
    {
      name: 'overage',
      e: { event: 'overage', until: '2026-11-22T05:00:00.000Z' },
      want: 'paid extra usage: waiting until 05:00',
    },
    { name: 'test', e: { event: 'test' }, want: 'test notification' },
  ])('headline: $name → $want', ({ e, want }) => {
    expect(headline(event(e), UTC)).toBe(want);
  });

  test('the body names the run, the task, why, the report and the next command', () => {
    expect(message(event())).toBe(
      [
        `run ${RUN}`,
        'task: Survey CRDT libraries',
        'finished: REPORT.md written',
        `report: /runs/${RUN}/REPORT.md`,
        `overnight status ${RUN}`,
      ].join('\n'),
    );
  });

  test('without a report the body points at the workspace', () => {
    expect(message(event({ report: null, task: null }))).toBe(
      [
        `run ${RUN}`,
        'finished: REPORT.md written',
        `workspace: /runs/${RUN}`,
        `overnight status ${RUN}`,
      ].join('\n'),
    );
  });
});

describe('webhook formats', () => {
  test('json: the event object, with its title and message', () => {
    const r = webhookRequest(webhook(), event(), {}, UTC);
    expect(r.ok).toBe(true);
    const req = r.ok ? r.value : null;
    expect(req?.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(req?.body ?? '')).toEqual({
      ...event(),
      title: 'overnight: done: the report is ready',
      message: message(event()),
    });
  });

  test.each<{ name: string; e: Partial<NotifyEvent>; want: Record<string, string> }>([
    { name: 'done', e: {}, want: { Priority: 'default', Tags: 'white_check_mark' } },
    {
      name: 'needs you',
      e: { event: 'needs-you', state: 'failed' },
      want: { Priority: 'high', Tags: 'warning' },
    },
    { name: 'failed', e: { event: 'failed', state: 'failed' }, want: { Priority: 'high', Tags: 'x' } },
    { name: 'restart', e: { event: 'restart' }, want: { Priority: 'low', Tags: 'arrows_counterclockwise' } },
    { name: 'overage', e: { event: 'overage' }, want: { Priority: 'high', Tags: 'money_with_wings' } },
  ])('ntfy, $name: a plain-text body with Title, Priority and Tags → $want.Priority', ({ e, want }) => {
    const r = webhookRequest(webhook({ format: 'ntfy' }), event(e), {}, UTC);
    const req = r.ok ? r.value : null;
    expect(req?.headers).toEqual({
      'Content-Type': 'text/plain; charset=utf-8',
      Title: `overnight: ${headline(event(e), UTC)}`,
      ...want,
    });
    expect(req?.body).toBe(message(event(e)));
  });

  test('slack: {"text": …} with its markup characters escaped', () => {
    const e = event({ reason: 'failed <here> & there', event: 'failed', state: 'failed' });
    const r = webhookRequest(webhook({ format: 'slack' }), e, {}, UTC);
    const text = r.ok ? (JSON.parse(r.value.body) as { text: string }).text : '';
    expect(text.split('\n')[0]).toBe('*overnight: failed*');
    expect(text).toContain('failed &lt;here&gt; &amp; there');
  });

  test("the person's headers, variables expanded, replace ours whatever their case", () => {
    const t = webhook({
      format: 'ntfy',
      headers: { priority: 'urgent', Authorization: 'Bearer ${NTFY_TOKEN}' },
    });
    const r = webhookRequest(t, event(), { NTFY_TOKEN: 'tk_1' }, UTC);
    const headers = r.ok ? r.value.headers : {};
    expect(headers).toMatchObject({ priority: 'urgent', Authorization: 'Bearer tk_1' });
    expect(headers).not.toHaveProperty('Priority');
  });

  test('a URL from a variable', () => {
    const r = webhookRequest(
      webhook({ url: '${SLACK}' }),
      event(),
      { SLACK: 'https://hooks.slack.com/x' },
      UTC,
    );
    expect(r.ok && r.value.url).toBe('https://hooks.slack.com/x');
  });

  test.each([
    { name: 'a header', t: webhook({ headers: { A: '${TOKEN}' } }), want: /the header A names \$\{TOKEN\}/ },
    { name: 'the URL', t: webhook({ url: '${URL}' }), want: /the webhook URL names \$\{URL\}/ },
  ])('a variable the launch environment lacks, in $name → an error naming it', ({ t, want }) => {
    const r = webhookRequest(t, event(), {}, UTC);
    expect(r.ok ? '' : r.error).toMatch(want);
  });

  test('a variable that is not a URL → an error', () => {
    const r = webhookRequest(webhook({ url: '${URL}' }), event(), { URL: 'ntfy.sh/x' }, UTC);
    expect(r.ok ? '' : r.error).toBe('the webhook URL is not an http or https URL');
  });

  test.each([
    { value: 'overnight: done', want: 'overnight: done' },
    { value: 'run 2026-été: done', want: '=?UTF-8?B?cnVuIDIwMjYtw6l0w6k6IGRvbmU=?=' },
    { value: 'two\nlines', want: 'two lines' },
  ])('header text $value → $want', ({ value, want }) => {
    expect(headerText(value)).toBe(want);
  });
});

describe('command and desktop', () => {
  const cmd: CommandTarget = {
    kind: 'command',
    id: 'def456def456',
    label: 'command /home/ada/bin/tell',
    on: ['done'],
    command: '/home/ada/bin/tell',
    args: ['--to', '${WHO}'],
  };

  test('a command: OVERNIGHT_* variables, the event as JSON on stdin, args expanded', () => {
    const r = commandCall(cmd, event(), { WHO: 'ada' }, UTC);
    expect(r.ok && r.value).toEqual({
      file: '/home/ada/bin/tell',
      args: ['--to', 'ada'],
      env: {
        OVERNIGHT_EVENT: 'done',
        OVERNIGHT_RUN: RUN,
        OVERNIGHT_STATE: 'done',
        OVERNIGHT_REASON: 'finished: REPORT.md written',
        OVERNIGHT_REPORT: `/runs/${RUN}/REPORT.md`,
        OVERNIGHT_WORKSPACE: `/runs/${RUN}`,
        OVERNIGHT_VERDICT: '',
        OVERNIGHT_REVIEW: '',
      },
      stdin: expect.stringMatching(/^\{"id":.*"event":"done".*\}\n$/),
    });
  });

  test('no report: OVERNIGHT_REPORT is empty', () => {
    const r = commandCall(cmd, event({ report: null }), { WHO: 'x' }, UTC);
    expect(r.ok && r.value.env.OVERNIGHT_REPORT).toBe('');
  });

  test.each([
    {
      platform: 'linux',
      want: {
        program: 'notify-send',
        args: [
          '--app-name=overnight',
          '--urgency=normal',
          '--',
          'overnight: done: the report is ready',
          message(event()),
        ],
      },
    },
    {
      platform: 'darwin',
      want: {
        program: 'osascript',
        args: [
          '-e',
          'on run argv',
          '-e',
          'display notification (item 2 of argv) with title (item 1 of argv)',
          '-e',
          'end run',
          'overnight: done: the report is ready',
          message(event()),
        ],
      },
    },
    { platform: 'win32', want: null },
  ])(
    'desktop on $platform: the words as arguments, never as script → $want.program',
    ({ platform, want }) => {
      expect(desktopCall(platform, event(), UTC)).toEqual(want);
    },
  );

  test('a run that needs you is critical on the desktop', () => {
    expect(desktopCall('linux', event({ event: 'needs-you', state: 'failed' }), UTC)?.args[1]).toBe(
      '--urgency=critical',
    );
  });
});

describe('the launch environment, read back for the values a target names', () => {
  test.each([
    {
      name: 'NAME=value lines, taken literally',
      text: "A=1\nTOKEN=tk_a=b 'c'\nnot a line\n",
      want: { A: '1', TOKEN: "tk_a=b 'c'" },
    },
    {
      name: "export NAME='value' lines in sh quotes",
      text: "export A='1'\nexport TOKEN='it'\\''s'\nexport ML='line one\nline two'\nexport B=plain\n",
      want: { A: '1', TOKEN: "it's", ML: 'line one\nline two', B: 'plain' },
    },
    { name: 'empty', text: '', want: {} },
  ])('$name', ({ text, want }) => {
    expect(parseLaunchEnv(text)).toEqual(want);
  });
});
